// A cap on the label values a metric takes from outside (event names, route templates), so no
// input can make the number of series grow without end.

/** The label value that stands for every value past the cap. */
export const OTHER_VALUE = '_OTHER';

/** Passes the first `max` distinct values through, and answers `_OTHER` for any new one after. */
export function boundedLabel(max: number): (value: string) => string {
  const seen = new Set<string>();
  return function bounded(value: string): string {
    if (seen.has(value)) return value;
    if (seen.size >= max) return OTHER_VALUE;
    seen.add(value);
    return value;
  };
}
