#!/bin/bash
# deploy/kubernetes/ rendered by scripts/k8s-render, with the default values and with
# values changed, validated offline against the Kubernetes API schemas (the npm
# package kubernetes-models, installed once into the build tree); wrong documents must
# fail the validator; closed by default (a fresh pre-shared key in a Secret, mounted
# and passed as --psk-file on both sides, the sink's --allow), open only with PSK=none
# ALLOW=any; the renderer refuses bad values; the pods' entry points (the ConfigMap's
# scripts) run with a fake tool, and scripts/k8s-collect takes the results from their
# "logs" through a fake kubectl.
# shellcheck disable=SC2010,SC2012 # ls lists and counts the files this test made
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"
RENDER=$abs_top_srcdir/scripts/k8s-render
COLLECT=$abs_top_srcdir/scripts/k8s-collect
VALIDATE=$abs_top_srcdir/tests/k8s_validate.js
command -v node >/dev/null || skip "node not found (Debian: apt-get install nodejs npm)"
command -v npm >/dev/null || skip "npm not found (Debian: apt-get install npm)"

# The validators: kubernetes-models and js-yaml, installed by npm into the build tree
# once (one installer at a time under make -j), bounded.
cache=$abs_top_builddir/tests/.k8s-validate
mkdir -p "$cache"
exec 8>"$cache/.lock"
flock -w 300 8 || skip "another test held $cache/.lock for 5 minutes"
if [ ! -f "$cache/node_modules/kubernetes-models/package.json" ] || [ ! -f "$cache/node_modules/js-yaml/package.json" ]; then
	echo "npm install kubernetes-models js-yaml into $cache"
	if ! timeout 240 npm install --prefix "$cache" --no-audit --no-fund --no-save --loglevel=error \
		--cache "$cache/.npm-cache" kubernetes-models@4.5.1 js-yaml@4.1.0 >"$TMPD/npm.log" 2>&1; then
		skip "npm install kubernetes-models js-yaml failed (registry unreachable?): $(grep -v '^$' "$TMPD/npm.log" | tail -n1)"
	fi
fi
exec 8>&-
export NODE_PATH=$cache/node_modules
# to_json YAML: the documents as one JSON array (for json_get).
to_json() { node -e 'const y=require("js-yaml");console.log(JSON.stringify(y.loadAll(require("fs").readFileSync(0,"utf8")).filter(d=>d)))' <"$1"; }

# --- default values ---------------------------------------------------------------
"$RENDER" >"$TMPD/default.yaml" 2>"$TMPD/err"
check_eq "render with values.env: exit status" "0:" "$?:$(cat "$TMPD/err")"
node "$VALIDATE" "$TMPD/default.yaml" >"$TMPD/val" 2>&1
check_eq "defaults: every document valid" "0" "$?"
cat "$TMPD/val"
check_eq "defaults: the six documents, the key's Secret among them" "ok Namespace -/nvme-rdma-bw
ok Secret nvme-rdma-bw/nvme-rdma-bw-psk
ok ConfigMap nvme-rdma-bw/nvme-rdma-bw-scripts
ok Service nvme-rdma-bw/nvme-rdma-bw-sink
ok Pod nvme-rdma-bw/nvme-rdma-bw-sink
ok Job nvme-rdma-bw/nvme-rdma-bw-source" "$(cat "$TMPD/val")"
check_eq "the templates' placeholders are all filled" "" "$(grep -o '\${[A-Z_]*}' "$TMPD/default.yaml" | sort -u)"

# --- closed by default: a pre-shared key and an allow-list ----------------------------
to_json "$TMPD/default.yaml" >"$TMPD/default.json"
D=$TMPD/default.json
# env_of DOC: NAME=VALUE of the pod's container (DOC 4: the sink's Pod, 5: the Job).
env_of() {
	json_get "$D" "' '.join('%s=%s' % (e['name'], e['value']) for e in (d[$1]['spec']['template']['spec'] if d[$1]['kind'] == 'Job' else d[$1]['spec'])['containers'][0]['env'] if e['name'] in ('PSK_FILE', 'ALLOW'))"
}
check_eq "defaults: the sink passes the key file and the allow-list" \
	"PSK_FILE=/etc/nvme-rdma-bw/psk/psk ALLOW=10.0.0.0/8,172.16.0.0/12,192.168.0.0/16,fc00::/7" "$(env_of 4)"
check_eq "defaults: the sources pass the key file" "PSK_FILE=/etc/nvme-rdma-bw/psk/psk" "$(env_of 5)"
check_eq "defaults: the Secret mounted there on both, readable by its owner only (0400)" \
	"nvme-rdma-bw-psk 256 /etc/nvme-rdma-bw/psk nvme-rdma-bw-psk 256 /etc/nvme-rdma-bw/psk" \
	"$(json_get "$D" "' '.join('%s %d %s' % ([v for v in s['volumes'] if v['name'] == 'psk'][0]['secret']['secretName'], [v for v in s['volumes'] if v['name'] == 'psk'][0]['secret']['defaultMode'], [m for m in s['containers'][0]['volumeMounts'] if m['name'] == 'psk'][0]['mountPath']) for s in (d[4]['spec'], d[5]['spec']['template']['spec']))")"
key1=$(json_get "$D" 'd[1]["data"]["psk"]')
check_eq "defaults: the key a file of 45 bytes (32 random bytes, base64, a newline)" 45 \
	"$(printf '%s' "$key1" | base64 -d | wc -c)"
"$RENDER" >"$TMPD/again.yaml"
to_json "$TMPD/again.yaml" >"$TMPD/again.json"
check_eq "a fresh key at each render" yes \
	"$([ "$key1" != "$(json_get "$TMPD/again.json" 'd[1]["data"]["psk"]')" ] && echo yes || echo no)"
"$RENDER" PSK=none ALLOW=any >"$TMPD/open.yaml"
node "$VALIDATE" "$TMPD/open.yaml" >"$TMPD/val" 2>&1
check_eq "PSK=none ALLOW=any: valid, no Secret" "0:5:0" "$?:$(grep -c '^ok ' "$TMPD/val"):$(grep -c '^ok Secret' "$TMPD/val")"
to_json "$TMPD/open.yaml" >"$TMPD/open.json"
check_eq "PSK=none ALLOW=any: the sink passes neither" "PSK_FILE= ALLOW=" \
	"$(D=$TMPD/open.json; json_get "$D" "' '.join('%s=%s' % (e['name'], e['value']) for e in d[3]['spec']['containers'][0]['env'] if e['name'] in ('PSK_FILE', 'ALLOW'))")"

# --- values changed -------------------------------------------------------------------
"$RENDER" NAMESPACE=bench IMAGE=registry.example/nbw:9.9 SINK_NODE=gpu-07 SOURCES=3 \
	RDMA_RESOURCE=nvidia.com/rdma_shared_device_b RDMA_COUNT=2 HOST_NETWORK=false PRIVILEGED=false \
	PORT=20000 SINK_MEMORY=64Gi SINK_DRAM=20G SOURCE_LABEL=example.com/nvme-source SOURCE_MODE=mem \
	SRC_DISKS=/host/dev/nvme0n1,/host/dev/nvme1n1 DEADLINE=600 >"$TMPD/changed.yaml"
check_eq "render with values changed: exit status" 0 $?
node "$VALIDATE" "$TMPD/changed.yaml" >"$TMPD/val" 2>&1
check_eq "changed: every document valid" "0:6" "$?:$(grep -c '^ok ' "$TMPD/val")"
# The documents but the key's Secret (checked above), in their order.
to_json "$TMPD/changed.yaml" | "$PYTHON3" -c 'import json, sys
print(json.dumps([x for x in json.load(sys.stdin) if x["kind"] != "Secret"]))' >"$TMPD/changed.json"
J=$TMPD/changed.json
check_eq "changed: namespace everywhere" "bench bench bench bench bench" \
	"$(json_get "$J" '" ".join([d[0]["metadata"]["name"]] + [x["metadata"]["namespace"] for x in d[1:]])')"
check_eq "changed: indexed Job of 3, 3 at a time" "Indexed 3 3" \
	"$(json_get "$J" '"%s %d %d" % (d[4]["spec"]["completionMode"], d[4]["spec"]["completions"], d[4]["spec"]["parallelism"])')"
check_eq "changed: the device-plugin resource on both pods" "2 2" \
	"$(json_get "$J" '"%s %s" % (d[3]["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/rdma_shared_device_b"], d[4]["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/rdma_shared_device_b"])')"
check_eq "changed: sink memory, host network and privileged off" "64Gi False False False False" \
	"$(json_get "$J" '"%s %s %s %s %s" % (d[3]["spec"]["containers"][0]["resources"]["limits"]["memory"], d[3]["spec"]["hostNetwork"], d[4]["spec"]["template"]["spec"]["hostNetwork"], d[3]["spec"]["containers"][0]["securityContext"]["privileged"], d[4]["spec"]["template"]["spec"]["containers"][0]["securityContext"]["privileged"])')"
check_eq "changed: IPC_LOCK on both pods" "True True" \
	"$(json_get "$J" '"%s %s" % ("IPC_LOCK" in d[3]["spec"]["containers"][0]["securityContext"]["capabilities"]["add"], "IPC_LOCK" in d[4]["spec"]["template"]["spec"]["containers"][0]["securityContext"]["capabilities"]["add"])')"
check_eq "changed: sink on its node, sources by their label" "gpu-07 example.com/nvme-source" \
	"$(json_get "$J" '"%s %s" % (d[3]["spec"]["nodeSelector"]["kubernetes.io/hostname"], d[4]["spec"]["template"]["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"][0]["matchExpressions"][0]["key"])')"
check_eq "changed: Service port, sink DNS name, image" "20000 sink.nvme-rdma-bw-sink.bench.svc registry.example/nbw:9.9" \
	"$(json_get "$J" '"%s %s %s" % (d[2]["spec"]["ports"][0]["port"], [e["value"] for e in d[4]["spec"]["template"]["spec"]["containers"][0]["env"] if e["name"] == "SINK_DNS"][0], d[3]["spec"]["containers"][0]["image"])')"
check_eq "changed: hostPath /dev read-only" "/dev True" \
	"$(json_get "$J" '"%s %s" % ([v for v in d[3]["spec"]["volumes"] if v["name"] == "host-dev"][0]["hostPath"]["path"], [m for m in d[3]["spec"]["containers"][0]["volumeMounts"] if m["name"] == "host-dev"][0]["readOnly"])')"
"$RENDER" -o "$TMPD/dir" SOURCES=2 >/dev/null
check_eq "-o DIR: one file per manifest" "00-namespace.yaml 05-psk.yaml 10-scripts.yaml 20-sink.yaml 30-sources.yaml" "$(ls "$TMPD/dir" | tr '\n' ' ' | sed 's/ $//')"
node "$VALIDATE" "$TMPD"/dir/*.yaml >/dev/null 2>&1
check_eq "-o DIR: each file valid" 0 $?

# --- the validator rejects wrong documents (the test can fail) ------------------------
sed 's/hostNetwork: true/hostNetwork: "yes"/' "$TMPD/default.yaml" >"$TMPD/bad1.yaml"
node "$VALIDATE" "$TMPD/bad1.yaml" >"$TMPD/val" 2>&1
check_eq "hostNetwork: \"yes\" is invalid" "1" "$?"
check_match "... and named" 'invalid .*Pod nvme-rdma-bw/nvme-rdma-bw-sink: .*hostNetwork' "$(cat "$TMPD/val")"
sed 's/memory: "20Gi"/memory: "20 GB"/' "$TMPD/default.yaml" >"$TMPD/bad2.yaml"
node "$VALIDATE" "$TMPD/bad2.yaml" >/dev/null 2>&1
check_eq "a memory quantity of \"20 GB\" is invalid" 1 $?
sed 's/completionMode: Indexed/completionMode: Sorted/' "$TMPD/default.yaml" >"$TMPD/bad3.yaml"
node "$VALIDATE" "$TMPD/bad3.yaml" >/dev/null 2>&1
check_eq "completionMode: Sorted is invalid" 1 $?
printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec: {containers: [{image: y}]}\n' >"$TMPD/bad4.yaml"
node "$VALIDATE" "$TMPD/bad4.yaml" >/dev/null 2>&1
check_eq "a container without a name is invalid" 1 $?
printf 'apiVersion: example.com/v1\nkind: Thing\nmetadata: {name: x}\n' >"$TMPD/bad5.yaml"
node "$VALIDATE" "$TMPD/bad5.yaml" >/dev/null 2>&1
check_eq "an unknown kind is refused" 1 $?

# --- the renderer refuses bad values -----------------------------------------------
expect_exit 2 'SOURCES=0: not a positive integer' "$RENDER" SOURCES=0
expect_exit 2 'HOST_NETWORK=yes: not true or false' "$RENDER" HOST_NETWORK=yes
expect_exit 2 'RDMA_RESOURCE=rdma: not an extended resource name' "$RENDER" RDMA_RESOURCE=rdma
expect_exit 2 'NAMESPACE=Bench: not a DNS label' "$RENDER" NAMESPACE=Bench
expect_exit 2 'PORT \+ SOURCES - 1 is not a port' "$RENDER" PORT=65535 SOURCES=2
expect_exit 2 'FOO: no such value' "$RENDER" FOO=1
expect_exit 2 'PSK=maybe: not random or none' "$RENDER" PSK=maybe
expect_exit 2 'ALLOW=bad: not any or CIDR' "$RENDER" ALLOW=bad
expect_exit 2 'ALLOW=10.0.0.0/8,: not any or CIDR' "$RENDER" ALLOW=10.0.0.0/8,
expect_exit 2 "unexpected argument 'x'" "$RENDER" x
printf 'NAMESPACE=a\n' >"$TMPD/short.env"
expect_exit 1 'has no value in' "$RENDER" -f "$TMPD/short.env"
"$RENDER" --list | grep -qx 'RDMA_RESOURCE=rdma/rdma_shared_device_a'
check_eq "--list shows the defaults" 0 $?

# --- the pods' entry points, with a fake tool; k8s-collect through a fake kubectl -----
mkdir -p "$TMPD/opt" "$TMPD/bin" "$TMPD/pods"
for s in common.sh sink.sh source.sh; do
	json_get "$TMPD/changed.json" "d[1][\"data\"][\"$s\"]" >"$TMPD/opt/$s"
	bash -n "$TMPD/opt/$s"
	check_eq "ConfigMap $s: bash -n" 0 $?
done
# nvme_write_bw_remote stand-in: writes a document into --json=FILE; no peer = sink.
# FAKE_FAIL_SOURCE=I makes source I fail; FAKE_REFUSE=N refuses the first N tries.
cat >"$TMPD/bin/nvme_write_bw_remote" <<'SH'
#!/bin/bash
json= peer= port=
while [ $# -gt 0 ]; do
	case $1 in
	--json=*) json=${1#--json=} ;;
	-p) port=$2; shift ;;
	-t | -s | --warmup | -D | --timeout | -d | --verify | --dram | --wait | --local-disks | --disks | --source) shift ;;
	--psk-file | --allow) echo "$1 $2" >>"$FAKE_DIR/access.$POD_NAME"; shift ;;
	-*) ;;
	*) peer=$1 ;;
	esac
	shift
done
echo "$*" >/dev/null
if [ -z "$peer" ]; then
	echo "nvme_write_bw_remote: sink: waiting for a source on port $port" >&2
	printf '{"tool":"nvme_write_bw_remote","role":"sink","port":%d,"verify":"pass","drives":[],"local":{"bytes":1,"seconds":1,"gb_per_s":0.5},"rdma":{"bytes":1,"seconds":1,"gb_per_s":0.25},"total":{"bytes":2,"seconds":1,"gb_per_s":0.75},"ideal_gb_per_s":1.0,"percent_of_ideal":75.0}\n' "$port" >"$json"
	exit 0
fi
n=$(($(cat "$FAKE_DIR/tries.$port" 2>/dev/null || echo 0) + 1))
echo $n >"$FAKE_DIR/tries.$port"
if [ "$n" -le "${FAKE_REFUSE:-0}" ]; then echo "nvme_write_bw_remote: $peer port $port: Connection refused" >&2; exit 1; fi
if [ "$port" = "${FAKE_FAIL_PORT:-}" ]; then
	echo "nvme_write_bw_remote: RDMA data verification: FAIL (worker 0: canary differs)" >&2
	printf '{"tool":"nvme_write_bw_remote","role":"source","ok":false,"verify":"fail","rdma":{"bytes":1,"seconds":1,"gb_per_s":0.25}}\n' >"$json"
	exit 1
fi
printf '{"tool":"nvme_write_bw_remote","role":"source","peer":"%s","verify":"pass","drives":[{"path":"x"}],"rdma":{"bytes":1,"seconds":1,"gb_per_s":0.25},"total":{"bytes":1,"seconds":1,"gb_per_s":0.25}}\n' "$peer" >"$json"
SH
chmod +x "$TMPD/bin/nvme_write_bw_remote"
export FAKE_DIR=$TMPD/pods
# The pod environment the manifests give (changed values: 3 sources, PORT 20000).
penv() { # penv POD -> env assignments of that pod
	json_get "$J" "' '.join('%s=%s' % (e['name'], e['value']) for e in d[$1]['spec'$( [ "$1" = 4 ] && echo "]['template']['spec'" )]['containers'][0]['env'] if 'value' in e)"
}
sinkenv=$(penv 3) srcenv=$(penv 4)
runpod() { # runpod NAME SCRIPT ENV...: its log (stdout + stderr) in pods/NAME.log
	local name=$1 script=$2
	shift 2
	(cd "$TMPD" && env -i PATH="$TMPD/bin:/usr/bin:/bin" FAKE_DIR="$FAKE_DIR" POD_NAME="$name" NODE_NAME="node-$name" \
		"$@" timeout 60 bash "$TMPD/opt/$script") >"$TMPD/pods/$name.log" 2>&1
	echo $? >"$TMPD/pods/$name.rc"
}
# shellcheck disable=SC2086
runpod nvme-rdma-bw-sink sink.sh $sinkenv SINK_DISKS=
check_eq "sink.sh: exit 0" 0 "$(cat "$TMPD/pods/nvme-rdma-bw-sink.rc")"
check_eq "sink.sh: one sink per source, on PORT + i" "3 20000 20001 20002" \
	"$(grep -c '=== nvme-rdma-bw result begin: role=sink' "$TMPD/pods/nvme-rdma-bw-sink.log") $(grep -o 'port":[0-9]*' "$TMPD/pods/nvme-rdma-bw-sink.log" | cut -d: -f2 | tr '\n' ' ' | sed 's/ $//')"
for i in 0 1 2; do
	# shellcheck disable=SC2086
	FAKE_REFUSE=1 runpod nvme-rdma-bw-source-$i-x source.sh $srcenv SINK_ADDR= JOB_COMPLETION_INDEX=$i FAKE_REFUSE=1
done
check_eq "sink.sh: each sink given the key file and the allow-list" \
	"$(for i in 0 1 2; do printf -- '--psk-file /etc/nvme-rdma-bw/psk/psk\n--allow 10.0.0.0/8,172.16.0.0/12,192.168.0.0/16,fc00::/7\n'; done | sort)" \
	"$(sort "$TMPD/pods/access.nvme-rdma-bw-sink")"
check_eq "source.sh: the source given the key file (each try)" "--psk-file /etc/nvme-rdma-bw/psk/psk" \
	"$(sort -u "$TMPD/pods/access.nvme-rdma-bw-source-2-x")"
check_eq "source.sh: exit 0 after one refusal (retried)" "0 0 0" "$(cat "$TMPD"/pods/nvme-rdma-bw-source-*.rc | tr '\n' ' ' | sed 's/ $//')"
check_match "source.sh: says it retries" 'not ready; retrying in 2 s' "$(cat "$TMPD/pods/nvme-rdma-bw-source-1-x.log")"
check_eq "source.sh: the sink's DNS name as peer" "sink.nvme-rdma-bw-sink.bench.svc" \
	"$(sed -n '/result begin/,/result end/p' "$TMPD/pods/nvme-rdma-bw-source-2-x.log" | grep -o '"peer":"[^"]*"' | cut -d'"' -f4)"

# Fake kubectl: get pods prints "NAME PHASE" from pods/*.phase, logs prints pods/NAME.log.
cat >"$TMPD/bin/kubectl" <<'SH'
#!/bin/bash
d=$FAKE_DIR
case "$1 $2" in
"get pods") for f in "$d"/*.log; do n=${f##*/}; n=${n%.log}; echo "$n $(cat "$d/$n.phase" 2>/dev/null || echo Succeeded)"; done ;;
"logs -n") [ -f "$d/$4.log" ] || { echo "Error from server (NotFound): pods \"$4\" not found" >&2; exit 1; }; cat "$d/$4.log" ;;
*) echo "fake kubectl: $*" >&2; exit 1 ;;
esac
SH
chmod +x "$TMPD/bin/kubectl"
rm -f "$TMPD"/pods/tries.*
PATH=$TMPD/bin:$PATH "$COLLECT" -n bench -o "$TMPD/res" --wait 5 >"$TMPD/out" 2>"$TMPD/err"
check_eq "k8s-collect: exit status" "0" "$?"
check_eq "k8s-collect: one document per sink and source" \
	"aggregate-nvme-rdma-bw-sink.1.json aggregate-nvme-rdma-bw-sink.2.json aggregate-nvme-rdma-bw-sink.json aggregate-nvme-rdma-bw-source-0-x.json aggregate-nvme-rdma-bw-source-1-x.json aggregate-nvme-rdma-bw-source-2-x.json" \
	"$(cd "$TMPD/res" && ls aggregate-*.json | tr '\n' ' ' | sed 's/ $//')"
check_eq "k8s-collect: the sink's document is JSON" "sink 20000" "$(json_get "$TMPD/res/aggregate-nvme-rdma-bw-sink.json" '"%s %d" % (d["role"], d["port"])')"
check_match "k8s-collect: the summary table" 'aggregate +nvme-rdma-bw-sink +sink +0 +0\.500 +0\.250 +0\.750 +1\.000 +75\.0 +pass' "$(cat "$TMPD/out")"
check_match "k8s-collect: the logs kept without the documents" '^\[sink 0\] nvme_write_bw_remote: sink: waiting' "$(cat "$TMPD/res/aggregate-nvme-rdma-bw-sink.log")"

# A failing source: exit 1, the pod and the tool's message named.
# shellcheck disable=SC2086
FAKE_FAIL_PORT=20001 runpod nvme-rdma-bw-source-1-x source.sh $srcenv JOB_COMPLETION_INDEX=1 FAKE_FAIL_PORT=20001
echo Failed >"$TMPD/pods/nvme-rdma-bw-source-1-x.phase"
check_eq "source.sh: the tool's exit status" 1 "$(cat "$TMPD/pods/nvme-rdma-bw-source-1-x.rc")"
PATH=$TMPD/bin:$PATH "$COLLECT" -n bench -o "$TMPD/res2" --wait 0 >"$TMPD/out" 2>"$TMPD/err"
check_eq "k8s-collect with a failed source: exit 1" 1 $?
check_match "... names the pod and the reason" 'nvme-rdma-bw-source-1-x: source 1 failed \(exit 1\): .*verification: FAIL' "$(cat "$TMPD/err")"
check_match "... still prints the table" 'nvme-rdma-bw-source-1-x +source' "$(cat "$TMPD/out")"
# A pod still running: the wait is bounded.
echo Running >"$TMPD/pods/nvme-rdma-bw-sink.phase"
t0=$SECONDS
PATH=$TMPD/bin:$PATH "$COLLECT" -n bench -o "$TMPD/res3" --wait 2 >"$TMPD/out" 2>"$TMPD/err"
check_eq "k8s-collect, a pod running past --wait: exit 1" 1 $?
check_match "... named" 'still running after --wait 2 s: nvme-rdma-bw-sink \(Running\)' "$(cat "$TMPD/err")"
check_eq "... within the bound" yes "$([ $((SECONDS - t0)) -le 6 ] && echo yes || echo no)"
expect_exit 2 '--wait needs a number of seconds' "$COLLECT" --wait soon
finish
