import { DEFAULT_SPEED_TABLE, MPH_TO_KMH } from './default-speed-table.ts';

/** A parsed OSM `maxspeed` value. */
export type Maxspeed =
  | { kind: 'speed'; kmh: number }
  | { kind: 'none' }
  | { kind: 'walk' }
  /** A legal context such as `FR:urban`, `DE:rural`, `DE:motorway`, `GB:nsl_single`. */
  | { kind: 'zone'; country: string; zone: string }
  /** Variable or signalled limits (`signals`, `variable`): known to exist, value not in the data. */
  | { kind: 'variable' };

const KNOTS_TO_KMH = 1.852;
const NUMBER_WITH_UNIT = /^(\d+(?:[.,]\d+)?)\s*(km\/h|kmh|kph|mph|knots)?$/i;
const ZONE = /^([A-Za-z]{2})(?:-[A-Za-z0-9]{1,3})?:\s*([A-Za-z_]+?)?:?\s*(\d+)?$/;

/**
 * Parses one `maxspeed` value: numbers (km/h unless suffixed `mph` or `knots`), `none`, `walk`, `signals` /
 * `variable`, and zone codes (`FR:urban`, `RO:rural`, `DE:zone30`, `DE:zone:30`). Multiple values separated by `;`
 * (per-lane or time-dependent limits) resolve to the first one. Returns null for values it cannot interpret.
 */
export function parseMaxspeed(raw: string | undefined | null): Maxspeed | null {
  if (raw === undefined || raw === null) return null;
  const value = raw.split(';')[0]!.trim();
  if (value === '') return null;
  const lower = value.toLowerCase();
  if (lower === 'none' || lower === 'unlimited') return { kind: 'none' };
  if (lower === 'walk') return { kind: 'walk' };
  if (lower === 'signals' || lower === 'variable') return { kind: 'variable' };
  const number = NUMBER_WITH_UNIT.exec(value);
  if (number) {
    const amount = Number.parseFloat(number[1]!.replace(',', '.'));
    const unit = (number[2] ?? 'km/h').toLowerCase();
    const kmh = unit === 'mph' ? amount * MPH_TO_KMH : unit === 'knots' ? amount * KNOTS_TO_KMH : amount;
    return kmh > 0 && kmh <= 300 ? { kind: 'speed', kmh } : null;
  }
  const zone = ZONE.exec(value);
  if (zone) {
    const country = zone[1]!.toUpperCase();
    const name = (zone[2] ?? '').toLowerCase();
    const digits = zone[3];
    // "DE:zone30", "DE:zone:30", "IT:30": a zone whose number is the limit.
    if (digits !== undefined) {
      const kmh = Number.parseInt(digits, 10);
      const mph = country === 'US' || DEFAULT_SPEED_TABLE[country]?.unit === 'mph';
      return kmh > 0 && kmh <= 300 ? { kind: 'speed', kmh: mph ? kmh * MPH_TO_KMH : kmh } : null;
    }
    if (name === '') return null;
    return { kind: 'zone', country, zone: name };
  }
  return null;
}
