# SPDX-License-Identifier: MIT
# bash completion for pmu(1): subcommands, their options, and event names
# (from "pmu list") after -e/--event, for "pmu check -e" and "pmu encode".

_pmu_events()
{
	# "a,b,c": complete the last name of a comma-separated list
	local cur=$1 pre= last=$1
	if [[ $cur == *,* ]]; then
		pre=${cur%,*},
		last=${cur##*,}
	fi
	local names
	names=$(pmu list 2>/dev/null | awk '/^  [^ ]/ { print $1 }')
	COMPREPLY=($(compgen -P "$pre" -W "$names" -- "$last"))
	compopt -o nospace 2>/dev/null
}

_pmu()
{
	local cur prev cmd i
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}
	if ((COMP_CWORD == 1)); then
		COMPREPLY=($(compgen -W "check list encode stat version help --help --version" -- "$cur"))
		return
	fi
	cmd=${COMP_WORDS[1]}
	case $cmd in
	help)
		((COMP_CWORD == 2)) && COMPREPLY=($(compgen -W "check list encode stat" -- "$cur"))
		return ;;
	stat)
		# after the command, complete its own words
		for ((i = 2; i < COMP_CWORD; i++)); do
			case ${COMP_WORDS[i]} in
			--) _command_offset $((i + 1)) 2>/dev/null; return ;;
			-e|--event|-x|--field-separator|-o|--output|-r|--repeat) ((i++)) ;;
			-*) ;;
			*) _command_offset "$i" 2>/dev/null; return ;;
			esac
		done
		case $prev in
		-e|--event) _pmu_events "$cur"; return ;;
		-o|--output) COMPREPLY=($(compgen -f -- "$cur")); return ;;
		-x|--field-separator|-r|--repeat) return ;;
		esac
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "-e --event -x --field-separator -j --json-output --json -o --output
				--append -r --repeat -p --pid -t --tid --per-thread -a --all-cpus -C --cpu -A --no-aggr -h --help --" -- "$cur"))
		else
			COMPREPLY=($(compgen -c -- "$cur"))
		fi ;;
	check)
		case $prev in
		-e) _pmu_events "$cur"; return ;;
		esac
		COMPREPLY=($(compgen -W "-e --help" -- "$cur")) ;;
	list)
		case $prev in
		--sysfs) COMPREPLY=($(compgen -d -- "$cur")); return ;;
		esac
		COMPREPLY=($(compgen -W "--json --sysfs --help" -- "$cur")) ;;
	encode)
		case $prev in
		--sysfs) COMPREPLY=($(compgen -d -- "$cur")); return ;;
		esac
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "--sysfs --help" -- "$cur"))
		else
			_pmu_events "$cur"
		fi ;;
	esac
}
complete -F _pmu pmu
