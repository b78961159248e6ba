#!/bin/sh
# Job reconcile-shadow-merge: waits until the SHARDS partial summaries are written, then merges them into
# $WORK/report.$FORMAT (html, markdown or json), printing one `controller: verdict` line per controller.
set -eu
while [ "$(ls "$WORK/partials" 2>/dev/null | grep -c '^partial-[0-9]*\.json$')" -lt "$SHARDS" ]; do sleep 5; done
exec $RECONCILE_SHADOW merge "$WORK"/partials/partial-*.json --format "$FORMAT" --out "$WORK/report.$FORMAT"
