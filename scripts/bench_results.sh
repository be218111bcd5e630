# scripts/bench_results.sh: run_bench.sh's recording of every run into the record
# of nbw-results (sourced by run_bench.sh from beside itself; not a command). Uses
# run_bench.sh's nodes, run_dir and tool, bench_node.sh's is_this_machine, start_bg and
# started, bench_lib.sh's say.
#
#   RESULTS      the record's directory [$NBW_RESULTS, else nbw-results' default,
#                $XDG_DATA_HOME/nbw-results or ~/.local/share/nbw-results];
#                none = record nothing and take no inventory
#   NOTE         a note recorded with the run (what changed)
#   CHANGE_STARTS=1  a known change starts with this run
#
# results_begin: the start time and, on every node through the launcher, the
# host's inventory (inventory/NODE.json; a node without nbw-results is said and
# skipped). results_record: the run directory into the record. Neither changes
# the run's exit status: a run that could not be recorded says so and how to
# record it later.
# shellcheck shell=bash disable=SC2154,SC2034  # run_dir, nodes, started: run_bench.sh's

results_on() { [ "${RESULTS:-}" != none ]; }

# The local nbw-results, an absolute path: beside this script (source tree), else
# on PATH.
results_cmd() {
	local here
	here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
	if [ -f "$here/nbw-results" ]; then
		printf '%s\n' "$here/nbw-results"
	else
		command -v nbw-results
	fi
}

results_begin() {
	local node pids=() p inv
	results_started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
	results_on || return 0
	case ${CHANGE_STARTS:-0} in 0 | 1) ;; *) say "CHANGE_STARTS=$CHANGE_STARTS: 0 or 1 (taken as 1)" ;; esac
	mkdir -p "$run_dir/inventory" || return 0
	for node in "${nodes[@]}"; do
		if is_this_machine "$node"; then
			inv=("${PYTHON3:-python3}" "$(results_cmd)" inventory --host "$node")
		elif [ -n "${TOOL_DIR:-}" ]; then
			inv=("$(tool nbw-results)" inventory --host "$node")
		else # the same path on the node: an installed suite, or a shared tree
			inv=("$(results_cmd)" inventory --host "$node")
		fi
		[ -z "${TOOL_DIR:-}" ] || inv+=(--probe "$(tool nvme_link_probe)")
		# 120 s: a second on real hosts, but 41-59 s as an srun step on an
		# emulated lab node under load, and node a's hit 60 s (the lab's Slurm).
		start_bg "$run_dir/inventory/$node.json" "$run_dir/inventory/$node.log" "$node" 120 \
			inventory "${inv[@]}"
		pids+=("$bg_pid:$node")
	done
	for p in "${pids[@]}"; do
		if wait "${p%%:*}"; then
			rm -f "$run_dir/inventory/${p#*:}.log"
		else
			say "inventory of ${p#*:} not taken: $(tail -n1 "$run_dir/inventory/${p#*:}.log" 2>/dev/null)"
			rm -f "$run_dir/inventory/${p#*:}.json"
		fi
	done
	started=()
}

results_record() {
	local nr args=()
	results_on || return 0
	nr=$(results_cmd) || { say "nbw-results not found: the run is not recorded"; return 0; }
	[ -z "${RESULTS:-}" ] || args+=(--db "$RESULTS")
	[ -z "${NOTE:-}" ] || args+=(--note "$NOTE")
	[ "${CHANGE_STARTS:-0}" = 0 ] || args+=(--change-starts)
	if "${PYTHON3:-python3}" "$nr" record "${args[@]}" --start "$results_started" "$run_dir" \
		>"$run_dir/record.txt" 2>"$run_dir/record.log"; then
		say "$(cat "$run_dir/record.txt")"
	else
		say "not recorded: $(tail -n1 "$run_dir/record.log") (later: nbw-results record${RESULTS:+ --db $RESULTS} $run_dir)"
	fi
}
