/**
 * CSV encoding (RFC 4180) for exports that people open in spreadsheets: CRLF line ends, a cell
 * quoted when it holds `,`, `"`, CR or LF (quotes doubled), and a formula guard — a cell starting
 * with `=`, `+`, `-`, `@`, TAB or CR gets a leading `'`, so a spreadsheet shows it as text instead of
 * evaluating it (OWASP "CSV injection").
 */

/** What a cell can hold: arrays are joined with `;`, null and undefined are an empty cell. */
export type CsvValue = string | number | boolean | null | undefined | readonly string[];

const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

/** One encoded cell. */
export function csvCell(value: CsvValue): string {
  if (value === null || value === undefined) return '';
  let text = Array.isArray(value) ? value.join(';') : String(value);
  if (FORMULA_START.test(text)) text = `'${text}`;
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One encoded record, CRLF included. */
export function csvRow(values: readonly CsvValue[]): string {
  return `${values.map(csvCell).join(',')}\r\n`;
}
