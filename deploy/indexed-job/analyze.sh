#!/bin/sh
# One pod of Job reconcile-shadow-analyze: the partial summary of this pod's share of the input, written to
# $WORK/partials/partial-$JOB_COMPLETION_INDEX.json (through a temporary name, so the merge never reads half a file).
#   SPLIT=objects: every pod reads INPUT (one file) and keeps shard JOB_COMPLETION_INDEX of SHARDS of its objects
#   SPLIT=files:   INPUT is a pattern of files (one per operator, say); pod i reads the (i+1)-th of them, whole
# INPUT_KIND is journal or logs (a log is read with --loop $LOOP); RECONCILE_SHADOW is the command (the image's).
set -eu
i="$JOB_COMPLETION_INDEX"
case "$SPLIT" in
  objects) input="$INPUT"; shard="$i/$SHARDS" ;;
  files)   input=$(ls -1d $INPUT 2>/dev/null | sed -n "$((i + 1))p"); shard="0/1" ;;
  *)       echo "SPLIT must be objects or files, not $SPLIT" >&2; exit 2 ;;
esac
if [ -z "$input" ]; then echo "pod $i: no file $((i + 1)) matches $INPUT" >&2; exit 1; fi
case "$INPUT_KIND" in
  journal) set -- --journal "$input" ;;
  logs)    set -- --logs "$input" --loop "$LOOP" ;;
  *)       echo "INPUT_KIND must be journal or logs, not $INPUT_KIND" >&2; exit 2 ;;
esac
mkdir -p "$WORK/partials"
$RECONCILE_SHADOW analyze --model "$MODEL" "$@" --shard "$shard" --format partial > "$WORK/partials/.partial-$i.json"
mv "$WORK/partials/.partial-$i.json" "$WORK/partials/partial-$i.json"
