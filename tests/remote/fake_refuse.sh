#!/bin/bash
# fake_refuse.sh: whom and what the sink turns away, over the fake fabric (no RDMA
# device): a HELLO that does not match, a HELLO the DRAM cannot hold, a wrong pre-shared
# key (the door keeps waiting, the right key then gets in), a source outside --allow, a
# QP whose GID is outside --allow, an rdma_cm request without our private data, a QP the
# sink cannot open; and the ports: no device, a name that is none, a port that is down,
# rails that reach no sink port. One line each, the documented exit status.
# shellcheck disable=SC2086 # RUN and the ARGS strings: options, split into words
. "${abs_top_srcdir:-$(dirname "$0")/../..}/tests/remote/fake_lib.sh"

# A HELLO with another message size: the source is told, the sink waits on (--wait 2).
pair hello "--no-local --dram 4M --wait 2 --json" "-s 128K --source mem"
check_eq "hello: exits" "1 1" "$SINK_RC $SRC_RC"
check_match "hello: the source is told the mismatch" "parameter mismatch with 127\.0\.0\.1: .*chunk" "$(cat "$TMPD/hello-src.err")"
check_match "hello: the sink refused it and waited on" "refused: parameter mismatch.*still waiting" "$(cat "$TMPD/hello-sink.err")"
jv hello-sink 'd["error"]' 'd["ok"]'
check_eq "hello: nobody came" "no source connected within 2 s (--wait) False" "${J[0]} ${J[1]}"

# Three differences at once: all three named in one line, on both sides.
pair hello3 "--no-local --dram 4M --wait 2" "-s 128K -t 3 -D 2 --source mem"
check_eq "hello3: exits" "1 1" "$SINK_RC $SRC_RC"
check_match "hello3: the source is told every difference" \
	"parameter mismatch with 127\.0\.0\.1: chunk: sink 64KiB, source 128KiB; depth: sink 2, source 3; duration: sink 1 s, source 2 s$" \
	"$(cat "$TMPD/hello3-src.err")"
check_match "hello3: the sink names them too" "chunk: .*; depth: .*; duration: " "$(cat "$TMPD/hello3-sink.err")"

# 8 workers x 3 slots x 64 KiB do not fit 1 MiB of DRAM.
pair dram "--no-local --dram 1M --wait 2" "-q 8 --source mem"
check_eq "dram: exits" "1 1" "$SINK_RC $SRC_RC"
check_match "dram: the source is told what it needs" \
	"sink DRAM 1MiB is too small for 8 workers x 3 slots of 64KiB \(and the local readers\): it needs [0-9.]+[KM]iB \(--dram\)" \
	"$(cat "$TMPD/dram-src.err")"

# The pre-shared key: a wrong one is turned away, the right one gets in.
printf 'a key of thirty-two bytes or so.\n' >"$TMPD/key"
printf 'another key, just as long as it.\n' >"$TMPD/other"
chmod 600 "$TMPD/key" "$TMPD/other"
sink psk-sink $RUN --no-local --dram 4M --wait 8 --json --psk-file "$TMPD/key"
src psk-bad $RUN --source mem --psk-file "$TMPD/other"
bad_rc=$SRC_RC
src psk-good $RUN --source mem --psk-file "$TMPD/key"
sink_status
check_eq "psk: wrong key exit 1, right key and sink 0" "1 0 0" "$bad_rc $SRC_RC $SINK_RC"
check_match "psk: the wrong key is told nothing useful" "key|refused|closed" "$(cat "$TMPD/psk-bad.err")"
jv psk-sink 'd["params"]["psk"]' 'd["verify"]'
check_eq "psk: the sink required the key, verified" "True pass" "${J[0]} ${J[1]}"
check_match "psk: said in the wait line" "pre-shared key required" "$(cat "$TMPD/psk-sink.err")"

# A source outside --allow: closed at the door.
pair allow "--no-local --dram 4M --wait 2 --allow 10.0.0.0/8" "--source mem"
check_eq "allow: exits" "1 1" "$SINK_RC $SRC_RC"
check_match "allow: the sink says so" "127\.0\.0\.1: not in --allow: closed" "$(cat "$TMPD/allow-sink.err")"

# Verbs: a QP whose GID (no IPv4 address: not v4-mapped) is outside --allow.
SINK_FAKE_PORTS="fake0:1:eth:-:100" SRC_FAKE_PORTS="fake0:1:eth:-:100" \
	pair gid "--no-local --dram 4M --allow 127.0.0.0/8 --bind 127.0.1.1" "--source mem"
check_eq "gid: exits" "1 1" "$SINK_RC $SRC_RC"
check_match "gid: refused" "127\.0\.0\.1: worker 0: its GID is outside --allow" "$(cat "$TMPD/gid-sink.err")"
check_match "gid: the source is told" "GID is outside --allow" "$(cat "$TMPD/gid-src.err")"

# rdma_cm: a connect request without our private data is rejected; the source fails.
sink cm-sink $RUN -R --no-local --dram 4M
NBW_FAKE_FAULT=stranger src cm-src $RUN -R --source mem
sink_status
check_eq "stranger: exits" "1 1" "$SINK_RC $SRC_RC"
check_match "stranger: rejected" "RDMA connect request without our private data: rejected" "$(cat "$TMPD/cm-sink.err")"
check_match "stranger: the sink gives up after --timeout" "0 of 1 RDMA connections arrived within 3 s" "$(cat "$TMPD/cm-sink.err")"

# The sink cannot open a QP: the source is told which worker and port.
NBW_FAKE_FAULT=qp sink qp-sink $RUN --no-local --dram 4M
src qp-src $RUN --source mem
sink_status
check_eq "qp: exits" "1 1" "$SINK_RC $SRC_RC"
check_match "qp: which" "worker 0 on fake0:1: ibv_create_qp \(fake fault\)" "$(cat "$TMPD/qp-src.err")"

# Ports.
expect_exit 1 "nosuch: no such RDMA device or port" "$FAKE" -d nosuch --no-local --dram 4M
expect_exit 1 "fake1:2: no such RDMA device or port" "$FAKE" -d fake1:2 --source mem 127.0.1.1
NBW_FAKE_PORTS="fake0:1:eth:127.0.1.1/24:100:down" expect_exit 1 "fake0: no ACTIVE port" "$FAKE" --no-local --dram 4M
NBW_FAKE_DIR='' expect_exit 1 "no RDMA device found" "$FAKE" --no-local --dram 4M
SRC_FAKE_PORTS="fake0:1:eth:10.9.0.2/24:100" pair rails "--no-local --dram 4M --wait 2" "--source mem"
check_eq "rails: source exit" 1 "$SRC_RC"
check_match "rails: no reachable sink port" "no sink port is reachable from this node's ports \(different link layers or subnets\)" \
	"$(cat "$TMPD/rails-src.err")"

# A peer the resolver does not know: its reason, not an errno that was never set.
NBW_FAKE_PORTS=$SRC_PORTS expect_exit 1 "no-such-host.invalid port [0-9]+: Name or service not known" \
	"$FAKE" --source mem --timeout 3 no-such-host.invalid
finish
