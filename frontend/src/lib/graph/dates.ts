// The graph's date range (GraphToolbar): what is wrong with one, in words.

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** Whether s is a real day written YYYY-MM-DD. */
function isDay(s: string): boolean {
  if (!DAY.test(s)) return false;
  const d = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
}

/**
 * Why the range from..to (YYYY-MM-DD days, "" for open) can match no node:
 * a day that is not a date, or from after to. "" when it is a range.
 */
export function dateRangeProblem(from: string, to: string): string {
  if (from && !isDay(from)) return `“${from}” is not a day: write it as YYYY-MM-DD.`;
  if (to && !isDay(to)) return `“${to}” is not a day: write it as YYYY-MM-DD.`;
  if (from && to && from > to) return `The range starts on ${from}, after it ends on ${to}: no node can match. Swap the days?`;
  return '';
}
