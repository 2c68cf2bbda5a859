#!/bin/sh
# After `make install` (DESTDIR empty): programs find libpmu.so.0 at run time
# only if its directory is in the dynamic loader's search path and the loader
# cache has been rebuilt. Run ldconfig when both can be done; otherwise say
# what to do, in one line.
#   mk/ldconfig.sh LIBDIR [LDCONFIG]
libdir=$1
ldconfig=${2:-ldconfig}
dir=$(cd "$libdir" 2>/dev/null && pwd -P) || exit 0

# `ldconfig -vNX` lists the directories it searches, changing nothing.
searched=no
for d in $($ldconfig -vNX 2>/dev/null | sed -n 's|^\(/[^:]*\):.*|\1|p'); do
	[ "$(cd "$d" 2>/dev/null && pwd -P)" = "$dir" ] && searched=yes && break
done

if [ $searched = no ]; then
	echo "libpmu: $libdir is not in the loader's search path: the pmu tool and the drop-ins find libpmu.so.0 by themselves; link your programs with -Wl,-rpath,$libdir"
elif [ "$(id -u)" -eq 0 ]; then
	echo "libpmu: running $ldconfig for $libdir"
	$ldconfig || echo "libpmu: $ldconfig failed: run it again as root"
else
	echo "libpmu: run ldconfig as root so that programs find libpmu.so.0 in $libdir"
fi
exit 0
