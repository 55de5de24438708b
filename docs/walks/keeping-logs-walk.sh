#!/bin/bash
# The literal rerun of docs/keeping-logs.md, as run on 2026-12-06 (docs/walks/keeping-logs-walk.md):
# terminal-1 commands in the background with a wait for /healthz. Needs sqlite3, aws (CLI), moto_server, go
# with Debian's x/mod sources, free ports 18787-18790, and no /tmp/klw. Run from anywhere: it cds to the checkout.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd); cd "$ROOT"
step() { echo; echo "################ $*"; }
waitup() { for i in $(seq 1 60); do curl -s -o /dev/null "$1" && return; sleep 1; done; echo "never up: $1"; }
step 1
W=/tmp/klw; mkdir -p $W/data
cat > $W/data/retention.json <<'EOF'
{ "payloadDays": 184, "tenants": { "legal-hold": null }, "everyMinutes": 60 }
EOF
step 2
(npx vouch serve --data $W/data --port 18787 > $W/serve1.log 2>&1 &)
waitup localhost:18787/healthz; cat $W/serve1.log | cut -c1-220
curl -s localhost:18787/v1/authorize -H 'content-type: application/json' \
  -d '{"event":"tools/call","phase":"request","payload":{"name":"echo","arguments":{"message":"call me at 415 555 0199"}}}' > $W/a.json
node -e 'const a=require("/tmp/klw/a.json"); require("fs").writeFileSync("/tmp/klw/receipt.json", JSON.stringify(a.receipt))'
curl -s localhost:18787/.well-known/vouch/keys > $W/keys.json
npx vouch verify $W/receipt.json --key $W/keys.json | tail -1
for i in $(seq 1 300); do curl -s -o /dev/null localhost:18787/v1/authorize -H 'content-type: application/json' \
  -d "{\"event\":\"tools/call\",\"phase\":\"request\",\"payload\":{\"name\":\"echo\",\"arguments\":{\"message\":\"call $i\"}}}"; done
curl -s localhost:18787/metrics | grep -E "^vouch_(retention|audit_failed|audit_incomplete|log_entries)"
kill -TERM $(cat $W/data/logs/default.lock); sleep 5; tail -2 $W/serve1.log | cut -c1-250
npx vouch log verify --data $W/data; echo "rc=$?"
step 3
cd $W && umask 077 && mkdir -p backup
cp -a data/archive backup/
sqlite3 data/logs/default.db ".backup 'backup/default.db'"
tar -C data -czf backup/keys.tar.gz keys
cp -p data/vouch.yaml data/policy.cedar data/schema.cedarschema.json data/retention.json backup/
cp -a data/checkpoints backup/
ls -la backup
umask 022; cd "$ROOT"
step 4
cd $W && mkdir -p restored/logs
tar -C restored -xzf backup/keys.tar.gz
cp backup/default.db restored/logs/
cp -a backup/archive restored/
cp -p backup/vouch.yaml backup/policy.cedar backup/schema.cedarschema.json backup/retention.json restored/
cd "$ROOT"
npx vouch log verify --data $W/restored; echo "rc=$?"
npx vouch keys export --data $W/restored --out $W/restored-keys.jwks
(npx vouch serve --read-only --data $W/restored --port 18788 > $W/ro.log 2>&1 &)
waitup localhost:18788/healthz
curl -s "localhost:18788/v1/proofs/consistency?from=2" > $W/consistency.json
npx vouch verify $W/receipt.json --key $W/restored-keys.jwks --checkpoint $W/consistency.json | tail -2
kill -TERM $(ss -ltnpH "sport = :18788" | grep -o "pid=[0-9]*" | head -1 | cut -d= -f2)
step 5
(cd $W && moto_server -H 127.0.0.1 -p 18790 > $W/moto.log 2>&1 &); sleep 4
cd $W
export AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test AWS_DEFAULT_REGION=us-east-1
E="--endpoint-url http://127.0.0.1:18790"
aws $E s3 mb s3://vouch-archive
aws $E s3 sync data/archive s3://vouch-archive --exclude '*/checkpoint' --exclude '*/.tmp/*' \
  --cache-control 'max-age=31536000, immutable' --only-show-errors
aws $E s3 sync data/archive s3://vouch-archive --exclude '*' --include '*/checkpoint' --cache-control 'max-age=5' --only-show-errors
B=http://127.0.0.1:18790/vouch-archive/default
curl -s -o /dev/null -w '%{http_code}\n' $B/checkpoint
aws $E s3api put-bucket-policy --bucket vouch-archive --policy \
  '{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::vouch-archive/*"}]}'
curl -s $B/checkpoint | head -2
curl -s -D - -o /dev/null $B/tile/0/000 | grep -i cache-control
cd "$ROOT"
mkdir -p $W/tlogcheck && cp test/interop/tlogcheck/*.go $W/tlogcheck/
(cd $W/tlogcheck && GO111MODULE=off GOPATH=/usr/share/gocode GOCACHE=$W/tlogcheck/cache GOFLAGS= go build -o tlogcheck .)
npx vouch keys export --data $W/data --format note > $W/vkeys.txt
cd $W && node -e '
const fs=require("fs");
const vkeys=fs.readFileSync("vkeys.txt","utf8").split("\n").filter(l=>l.trim()&&!l.startsWith("#"));
fs.writeFileSync("job.json",JSON.stringify({prefix:"http://127.0.0.1:18790/vouch-archive/default",vkeys,
  checkpoints:[fs.readFileSync("data/checkpoints/default.note","utf8")],inclusion:[],consistency:[]}));'
./tlogcheck/tlogcheck < job.json > go-report.json; echo $?
grep -E '"(ok|treeSize)"|note.Open|TreeHash|RecordHash|older checkpoints|unknown verifier' go-report.json
cd "$ROOT"
npx vouch log verify --data $W/data --archive http://127.0.0.1:18790/vouch-archive; echo "rc=$?"
step 6
npx vouch payload expire --older-than 0.001 --data $W/data --tenant default
npx vouch log verify --data $W/data | tail -1
npx vouch replay --data $W/data | tail -1
ls -l $W/data/logs/default.db
npx vouch log prune --tenant default --data $W/data --vacuum; echo "rc=$?"
ls -l $W/data/logs/default.db
npx vouch log verify --data $W/data | tail -1
npx vouch receipt 1 --data $W/data > $W/receipt-after-prune.json
npx vouch verify $W/receipt-after-prune.json --key $W/restored-keys.jwks | tail -1
step 6b
cd $W && umask 077 && mkdir -p backup2
cp -a data/archive backup2/
sqlite3 data/logs/default.db ".backup 'backup2/default.db'"
tar -C data -czf backup2/keys.tar.gz keys
cp -p data/vouch.yaml data/policy.cedar data/schema.cedarschema.json data/retention.json backup2/
cp -a data/checkpoints backup2/
mkdir -p restored2/logs
tar -C restored2 -xzf backup2/keys.tar.gz
cp backup2/default.db restored2/logs/
cp -p backup2/vouch.yaml backup2/policy.cedar backup2/schema.cedarschema.json backup2/retention.json restored2/
umask 022; cd "$ROOT"
npx vouch log verify --data $W/restored2 | grep -Ev "^  key"; echo "rc=${PIPESTATUS[0]}"
cp -a $W/backup2/archive $W/restored2/
npx vouch log verify --data $W/restored2 | sed -n '1,2p;$p'
step 7
(npx vouch serve --data $W/restored2 --port 18789 > $W/serve3.log 2>&1 &)
waitup localhost:18789/healthz
curl -s localhost:18789/v1/entries/1 > $W/receipt-restored.json
npx vouch verify $W/receipt-restored.json --key $W/restored-keys.jwks | tail -1
curl -s localhost:18789/v1/authorize -H 'content-type: application/json' \
  -d '{"event":"tools/call","phase":"request","payload":{"name":"echo","arguments":{"message":"after restore"}}}' | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const a=JSON.parse(s);console.log(a.effect,a.seq)})'
curl -s localhost:18789/metrics | grep -E "^vouch_(retention|audit_failed|audit_incomplete|log_entries)"
B=http://127.0.0.1:18790/vouch-archive/default; curl -s $B/checkpoint | sed -n 2p
kill -TERM $(cat $W/restored2/logs/default.lock); sleep 4
kill $(ss -ltnpH "sport = :18790" | grep -o "pid=[0-9]*" | head -1 | cut -d= -f2)   # the stand-in bucket
echo DONE $(date -u)
