/**
 * PHP's `date()` formatting for the few places the site prints dates (the `date_format` and
 * `time_format` options, RSS dates), in English. The input is a wall-clock time already in the wanted
 * zone, given as `YYYY-MM-DD HH:MM:SS`, plus that zone's UTC offset in minutes for `O`, `P`, `c`, `r`, `U`.
 */
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

function ordinalSuffix(day: number): string {
  if (day % 100 >= 11 && day % 100 <= 13) return 'th';
  return ['th', 'st', 'nd', 'rd'][day % 10] ?? 'th';
}

function offsetText(minutes: number, colon: boolean): string {
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `${sign}${pad(Math.floor(abs / 60))}${colon ? ':' : ''}${pad(abs % 60)}`;
}

/** Formats a `YYYY-MM-DD HH:MM:SS` wall-clock time with a PHP date format string. */
export function phpDate(format: string, mysql: string, offsetMinutes = 0): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})/.exec(mysql);
  if (!match) return '';
  const [y, mo, d, h, mi, s] = match.slice(1).map(Number) as [number, number, number, number, number, number];
  const wall = Date.UTC(y, mo - 1, d, h, mi, s);
  const weekday = new Date(wall).getUTCDay();
  const unix = Math.floor(wall / 1000) - offsetMinutes * 60;
  let out = '';
  for (let i = 0; i < format.length; i += 1) {
    const ch = format[i] as string;
    switch (ch) {
      case 'd':
        out += pad(d);
        break;
      case 'D':
        out += (DAYS[weekday] ?? '').slice(0, 3);
        break;
      case 'j':
        out += String(d);
        break;
      case 'l':
        out += DAYS[weekday] ?? '';
        break;
      case 'N':
        out += String(weekday === 0 ? 7 : weekday);
        break;
      case 'S':
        out += ordinalSuffix(d);
        break;
      case 'w':
        out += String(weekday);
        break;
      case 'F':
        out += MONTHS[mo - 1] ?? '';
        break;
      case 'M':
        out += (MONTHS[mo - 1] ?? '').slice(0, 3);
        break;
      case 'm':
        out += pad(mo);
        break;
      case 'n':
        out += String(mo);
        break;
      case 't':
        out += String(new Date(Date.UTC(y, mo, 0)).getUTCDate());
        break;
      case 'Y':
        out += String(y);
        break;
      case 'y':
        out += pad(y % 100);
        break;
      case 'a':
        out += h < 12 ? 'am' : 'pm';
        break;
      case 'A':
        out += h < 12 ? 'AM' : 'PM';
        break;
      case 'g':
        out += String(h % 12 === 0 ? 12 : h % 12);
        break;
      case 'G':
        out += String(h);
        break;
      case 'h':
        out += pad(h % 12 === 0 ? 12 : h % 12);
        break;
      case 'H':
        out += pad(h);
        break;
      case 'i':
        out += pad(mi);
        break;
      case 's':
        out += pad(s);
        break;
      case 'O':
        out += offsetText(offsetMinutes, false);
        break;
      case 'P':
        out += offsetText(offsetMinutes, true);
        break;
      case 'Z':
        out += String(offsetMinutes * 60);
        break;
      case 'U':
        out += String(unix);
        break;
      case 'c':
        out += `${y}-${pad(mo)}-${pad(d)}T${pad(h)}:${pad(mi)}:${pad(s)}${offsetText(offsetMinutes, true)}`;
        break;
      case 'r':
        out += `${(DAYS[weekday] ?? '').slice(0, 3)}, ${pad(d)} ${(MONTHS[mo - 1] ?? '').slice(0, 3)} ${y} ${pad(h)}:${pad(mi)}:${pad(s)} ${offsetText(offsetMinutes, false)}`;
        break;
      case '\\':
        i += 1;
        out += format[i] ?? '';
        break;
      default:
        out += ch;
    }
  }
  return out;
}
