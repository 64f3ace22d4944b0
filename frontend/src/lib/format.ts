// How numbers, times and paths read in the window.

/** USD: "$0.00" under a cent shows "<$0.01". */
export function formatCost(usd: number | undefined | null): string {
  const v = usd ?? 0;
  if (v === 0) return '$0.00';
  if (v < 0.01) return '<$0.01';
  if (v < 100) return `$${v.toFixed(2)}`;
  return `$${Math.round(v).toLocaleString('en-US')}`;
}

/**
 * A session's cost when some of its usage may be of a model without a price
 * (costUnknown): "unpriced" when nothing was priced, the priced part
 * with a "+" when some was, else formatCost.
 */
export function formatSessionCost(usd: number | undefined | null, unknown: boolean | undefined): string {
  if (!unknown) return formatCost(usd);
  return (usd ?? 0) > 0 ? `${formatCost(usd)}+` : 'unpriced';
}

/** Token counts: 950, 12.3k, 4.1M. */
export function formatTokens(n: number | undefined | null): string {
  const v = n ?? 0;
  if (v < 1000) return String(v);
  if (v < 1_000_000) return `${(v / 1000).toFixed(v < 10_000 ? 1 : 0)}k`;
  return `${(v / 1_000_000).toFixed(1)}M`;
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  if (n < 1024 ** 3) return `${(n / 1024 / 1024).toFixed(1)} MB`;
  return `${(n / 1024 ** 3).toFixed(2)} GB`;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** "2025-12-17 19:39" in local time; the input as given when it is not a date. */
export function formatDateTime(iso: string | undefined | null): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

export function formatDate(iso: string | undefined | null): string {
  return formatDateTime(iso).slice(0, 10);
}

export function formatTime(iso: string | undefined | null): string {
  const s = formatDateTime(iso);
  return s.length > 11 ? s.slice(11) : s;
}

/** A duration in minutes: "45 s", "12 min", "3 h 5 min", "2 d 4 h". */
export function formatMinutes(min: number | undefined | null): string {
  const m = min ?? 0;
  if (m < 1) return `${Math.round(m * 60)} s`;
  if (m < 60) return `${Math.round(m)} min`;
  if (m < 60 * 24) {
    const h = Math.floor(m / 60);
    const r = Math.round(m % 60);
    return r ? `${h} h ${r} min` : `${h} h`;
  }
  const d = Math.floor(m / 1440);
  const h = Math.round((m % 1440) / 60);
  return h ? `${d} d ${h} h` : `${d} d`;
}

/** Minutes between two ISO times, or null when either is missing. */
export function minutesBetween(a: string | undefined, b: string | undefined): number | null {
  if (!a || !b) return null;
  const ta = Date.parse(a);
  const tb = Date.parse(b);
  if (Number.isNaN(ta) || Number.isNaN(tb)) return null;
  return (tb - ta) / 60_000;
}

/** The last element of a path ("/home/me/proj" -> "proj"). */
export function baseName(path: string): string {
  const parts = path.split(/[\\/]/).filter(Boolean);
  return parts[parts.length - 1] ?? path;
}

/** What an error says: its message, or the thrown value as text. */
export function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
