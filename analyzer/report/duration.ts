/** Durations as people read them in tables and summaries: `4.5s`, `12s`, `3m07s`, `2h05m`. */
export function formatDuration(seconds: number): string {
  if (seconds < 10 && !Number.isInteger(seconds)) return `${Math.max(0, seconds).toFixed(1)}s`;
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}
