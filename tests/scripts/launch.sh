#!/bin/bash
# The lab launcher (scripts/vlab.d/launch + launch-agent) on loopback, posing
# as node a (client) and node b (agent, 127.0.0.1, a free port): argv arrives
# unchanged, stdout and stderr stay apart, the exit status (also of a signal,
# a missing command, a timeout) comes back; killing the client stops the
# remote command's whole process group; --stop ends the agent; the agent
# refuses to run outside a lab node; bad hosts and usage exit 2.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../lib.sh"
LAUNCH=$abs_top_srcdir/scripts/vlab.d/launch
AGENT=$abs_top_srcdir/scripts/vlab.d/launch-agent
LAUNCH_PORT=$("$PYTHON3" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
export LAUNCH_PORT LAUNCH_CONNECT_TIMEOUT=20
unset VLAB_NODE VLAB_ADDR VLAB_PEER VLAB_NODES

expect_exit 2 'not a virtual-lab node' "$AGENT"
expect_exit 2 'not inside a virtual-lab node' "$LAUNCH" b true
VLAB_NODE=b VLAB_ADDR=127.0.0.1 timeout 120 "$AGENT" --lifetime 100 2>"$TMPD/agent.log" &
agent=$!
t_cleanup_hooks+=("kill $agent 2>/dev/null")
export VLAB_NODE=a VLAB_ADDR=127.0.0.2 VLAB_PEER=127.0.0.1 VLAB_NODES=2

"$LAUNCH" b sh -c 'printf "%s|" "$@"; echo err >&2; exit 3' sh 'a b' "it's" '$HOME;*' '' >"$TMPD/out" 2>"$TMPD/err"
check_eq "exit status comes back" 3 $?
check_eq "argv unchanged (space, quote, \$, ;, *, empty)" "a b|it's|\$HOME;*||" "$(cat "$TMPD/out")"
check_eq "stderr apart" err "$(cat "$TMPD/err")"
"$LAUNCH" b sh -c 'kill -9 $$'
check_eq "killed by signal 9: 137" 137 $?
"$LAUNCH" b /nonexistent/cmd 2>"$TMPD/err"
check_eq "missing command: 127" 127 $?
check_match "missing command: said so" 'launch-agent: /nonexistent/cmd: No such file' "$(cat "$TMPD/err")"
"$LAUNCH" --timeout 1 b sleep 30
check_eq "--timeout: 124" 124 $?
"$LAUNCH" a sh -c 'echo "$VLAB_NODE"' >/dev/null
check_eq "the calling node runs CMD itself" 0 $?
check_eq "... as itself" a "$("$LAUNCH" a sh -c 'echo "$VLAB_NODE"')"
check_eq "node b runs it in the agent" b "$("$LAUNCH" b sh -c 'echo "$VLAB_NODE"')"
expect_exit 2 'c: not a lab node' "$LAUNCH" c true
expect_exit 2 '' "$LAUNCH" b
expect_exit 2 '--timeout: not a number' "$LAUNCH" --timeout soon b true

# The client dies: the agent stops the command and its children.
"$LAUNCH" b sh -c "sleep 61.7 & sleep 62.3; wait" &
client=$!
for ((i = 0; i < 50; i++)); do pgrep -f '^sleep 6(1\.7|2\.3)$' >/dev/null && break; sleep 0.2; done
check_eq "remote command running" 2 "$(pgrep -fc '^sleep 6(1\.7|2\.3)$')"
kill -TERM "$client"
wait "$client"
check_eq "client: 143" 143 $?
for ((i = 0; i < 50; i++)); do pgrep -f '^sleep 6(1\.7|2\.3)$' >/dev/null || break; sleep 0.2; done
check_eq "the whole remote group stopped" 0 "$(pgrep -fc '^sleep 6(1\.7|2\.3)$')"

"$LAUNCH" --stop b
check_eq "--stop: 0" 0 $?
timeout 10 tail --pid="$agent" -f /dev/null
check_eq "the agent ended" no "$(kill -0 "$agent" 2>/dev/null && echo yes || echo no)"
LAUNCH_CONNECT_TIMEOUT=1 "$LAUNCH" b true 2>"$TMPD/err"
check_eq "no agent: 255" 255 $?
check_match "no agent: said so" 'no launch-agent within 1 s' "$(cat "$TMPD/err")"
finish
