const ZONELESS = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/;
// ISO 8601 dates, and date-times with a zone or an offset (also without its colon, or after a space, as
// exporters write them). Date.parse reads any other text without a zone in the machine's time zone.
const ISO_8601 = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)? ?(Z|[+-]\d{2}:?\d{2}))?$/i;

/**
 * Epoch milliseconds from a trace time: an ISO 8601 string (times without a zone are taken as UTC, so a file
 * reads the same on every machine) or a number, taken as epoch milliseconds when above 1e11 and as seconds
 * otherwise (1e11 s is the year 5138; 1e11 ms is 1973). Returns NaN for anything else.
 */
export function parseTime(value: unknown): number {
  if (typeof value === 'number')
    return Number.isFinite(value) ? (Math.abs(value) > 1e11 ? value : value * 1000) : Number.NaN;
  if (typeof value !== 'string') return Number.NaN;
  const text = value.trim();
  if (text === '') return Number.NaN;
  if (/^-?\d+(\.\d+)?$/.test(text)) return parseTime(Number(text));
  if (ZONELESS.test(text)) return Date.parse(`${text.replace(' ', 'T')}Z`);
  return ISO_8601.test(text) ? Date.parse(text) : Number.NaN;
}
