/* SPDX-License-Identifier: MIT */
/*
 * libpmu-functions: every function of a program built with
 * -finstrument-functions counted as a region of its call path, the program
 * not linked with libpmu (LD_PRELOAD; libpmu-functions(7)). Such a program
 * refers to glibc's do-nothing hooks by glibc's symbol version, which only
 * an unversioned definition interposes: these, which hand each call to the
 * library's (regions/functions.c).
 */
#include "plugin.h"

__attribute__((visibility("default"))) void __cyg_profile_func_enter(void *fn, void *site)
{
	pmu__fn_enter(fn, site);
}

__attribute__((visibility("default"))) void __cyg_profile_func_exit(void *fn, void *site)
{
	pmu__fn_exit(fn, site);
}
