# SPDX-License-Identifier: MIT
# bash completion for pmu(1): subcommands, their options, and event names
# (from "pmu list --json") after -e/--event, for "pmu check -e" and "pmu encode";
# list keywords; stat options as "pmu stat --help" shows them; the command after
# "pmu emulate".

_pmu_events()
{
	# "a,b,c": complete the last name of a comma-separated list
	local cur=$1 pre= last=$1
	if [[ $cur == *,* ]]; then
		pre=${cur%,*},
		last=${cur##*,}
	fi
	local names
	names=$(pmu list --json 2>/dev/null | sed -n 's/^ *{"event": "\([^"]*\)".*/\1/p')
	COMPREPLY=($(compgen -P "$pre" -W "$names" -- "$last"))
	# readline replaces only what follows the last ':' of the word
	if [[ $cur == *:* && $COMP_WORDBREAKS == *:* ]]; then
		local i colon=${cur%"${cur##*:}"}
		for i in "${!COMPREPLY[@]}"; do
			COMPREPLY[i]=${COMPREPLY[i]#"$colon"}
		done
	fi
	compopt -o nospace 2>/dev/null
}

# The options "pmu stat --help" shows, so that new ones complete as they come.
_pmu_stat_options()
{
	local opts
	# "  -x, --field-separator SEP  description": the words before the description
	opts=$(pmu stat --help 2>&1 | sed -n 's/^  \(-[^ ].*\)/\1/p' | sed 's/   *.*//' |
		grep -o -- '\(^\|[ ,]\)--\?[a-zA-Z][-a-zA-Z]*' | tr -d ' ,')
	[[ -n $opts ]] || opts="-e --event -x --field-separator -j --json-output --json -o --output --append
		-r --repeat -p --pid -t --tid --per-thread -a --all-cpus -C --cpu -A --no-aggr --no-merge
		-I --interval-print -D --delay -v --verbose -M --metrics --metric-only --topdown --metric-no-group
		--perf-json -h"
	printf '%s\n' $opts --help --
}

# _command_offset takes an index of COMP_WORDS, where ':' splits words: the
# first one from $1 on that is the word w[$2].
_pmu_command_offset()
{
	local j
	for ((j = $1; j < ${#COMP_WORDS[@]}; j++)); do
		[[ ${COMP_WORDS[j]} == "$2" ]] && break
	done
	_command_offset "$j" 2>/dev/null
}

_pmu()
{
	local cur prev cmd i cword w
	# the words as typed: readline splits "sched:sched_switch" and "task-clock:u" at ':', pmu does not
	read -r -a w <<< "${COMP_LINE:0:COMP_POINT}"
	[[ ${COMP_LINE:0:COMP_POINT} == *[[:space:]] || ${#w[@]} == 0 ]] && w+=("")
	cword=$((${#w[@]} - 1))
	cur=${w[cword]}
	prev=${w[cword-1]}
	if ((cword == 1)); then
		COMPREPLY=($(compgen -W "check list encode stat report emulate version help --help --version" -- "$cur"))
		return
	fi
	cmd=${w[1]}
	case $cmd in
	help)
		((cword == 2)) && COMPREPLY=($(compgen -W "check list encode stat report emulate" -- "$cur"))
		return ;;
	stat)
		# after the command, complete its own words
		for ((i = 2; i < cword; i++)); do
			case ${w[i]} in
			--) _pmu_command_offset $((i + 1)) "${w[i + 1]}"; return ;;
			-e|--event|-x|--field-separator|-o|--output|-r|--repeat|-p|--pid|-t|--tid|-C|--cpu|-I|\
			--interval-print|-D|--delay|-M|--metrics|--perf-json) ((i++)) ;;
			-*) ;;
			*) _pmu_command_offset "$i" "${w[i]}"; return ;;
			esac
		done
		case $prev in
		-e|--event) _pmu_events "$cur"; return ;;
		-o|--output|--perf-json) COMPREPLY=($(compgen -f -- "$cur")); return ;;
		-M|--metrics) return ;;
		-x|--field-separator|-r|--repeat|-p|--pid|-t|--tid|-C|--cpu|-I|--interval-print|-D|--delay) return ;;
		esac
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "$(_pmu_stat_options)" -- "$cur"))
		else
			COMPREPLY=($(compgen -c -- "$cur"))
		fi ;;
	emulate)
		# pmu emulate [--backend B] [--] CMD ARGS: the backend, the command, then its own words
		[[ $prev == --backend ]] && { COMPREPLY=($(compgen -W "qemu valgrind" -- "$cur")); return; }
		i=2
		[[ ${w[i]} == --backend ]] && i=$((i + 2))
		[[ ${w[i]} == --backend=* ]] && i=$((i + 1))
		[[ ${w[i]} == -- ]] && i=$((i + 1))
		if ((cword > i)); then
			_pmu_command_offset "$i" "${w[i]}"
		elif [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "-- --backend --help" -- "$cur"))
		else
			COMPREPLY=($(compgen -c -- "$cur"))
		fi ;;
	report) ((cword == 2)) && COMPREPLY=($(compgen -W "merge diff" -- "$cur")) || COMPREPLY=($(compgen -f -- "$cur")) ;;
	check)
		case $prev in
		-e) _pmu_events "$cur"; return ;;
		esac
		COMPREPLY=($(compgen -W "-e --help" -- "$cur")) ;;
	list)
		case $prev in
		--sysfs) COMPREPLY=($(compgen -d -- "$cur")); return ;;
		--perf-json) COMPREPLY=($(compgen -f -- "$cur")); return ;;
		esac
		# perf list's keywords, then options
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "--json --available -v --verbose --sysfs --perf-json --help" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "hw hardware sw software cache hwcache pmu tracepoint metric metricgroup" -- "$cur"))
		fi ;;
	encode)
		case $prev in
		--sysfs) COMPREPLY=($(compgen -d -- "$cur")); return ;;
		--perf-json) COMPREPLY=($(compgen -f -- "$cur")); return ;;
		esac
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "--sysfs --perf-json --help" -- "$cur"))
		else
			_pmu_events "$cur"
		fi ;;
	esac
}
complete -F _pmu pmu
