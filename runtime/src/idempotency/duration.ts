// Durations in options: milliseconds as a number, or a short string such as '30s' or '4h'.

/** Milliseconds, or a number followed by a unit: ms, s, m, h or d (`'30s'`, `'4h'`, `'1.5d'`). */
export type Duration = number | string;

const UNIT_MS: Record<string, number> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

const DURATION = /^\s*(-?\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/i;

/** The duration in milliseconds, or `NaN` when it cannot be read (validation reports it). */
export function durationMs(value: Duration): number {
  if (typeof value === 'number') return value;
  if (typeof value !== 'string') return Number.NaN;
  const match = DURATION.exec(value);
  if (!match) return Number.NaN;
  const unit = (match[2] ?? 'ms').toLowerCase();
  return Number(match[1]) * UNIT_MS[unit]!;
}
