/**
 * JSON text written the many ways a client may write the same value: escapes, white space, key
 * order, number spellings, repeated keys. The server must read them all as the one JSON value
 * they carry, so tests build the text here and judge it with `JSON.parse`.
 */

/** A fragment written into the text as is: a number spelled `1.0e0`, or text that is not JSON. */
export class RawJson {
  constructor(readonly text: string) {}
}

/** An object written with its entries in this order, repeated keys included. */
export class JsonEntries {
  constructor(readonly entries: ReadonlyArray<readonly [string, unknown]>) {}
}

export interface JsonStyle {
  /** Which characters of strings are written as `\uXXXX`: none needed, all beyond ASCII, or all. */
  escape: 'needed' | 'nonAscii' | 'all';
  /** Written as `\/`, which JSON allows. */
  escapeSlash: boolean;
  /** Between tokens: JSON's white space is space, tab, line feed and carriage return. */
  space: string;
  /** Object keys written last to first. */
  reverseKeys: boolean;
}

export const PLAIN: JsonStyle = {
  escape: 'needed',
  escapeSlash: false,
  space: '',
  reverseKeys: false,
};

const SHORT_ESCAPES: Record<string, string> = {
  '"': '\\"',
  '\\': '\\\\',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
};

const unicodeEscape = (unit: number) => `\\u${unit.toString(16).padStart(4, '0')}`;

function isLoneSurrogate(text: string, index: number): boolean {
  const unit = text.charCodeAt(index);
  if (unit >= 0xd800 && unit <= 0xdbff) {
    const next = text.charCodeAt(index + 1);
    return !(next >= 0xdc00 && next <= 0xdfff);
  }
  if (unit >= 0xdc00 && unit <= 0xdfff) {
    const previous = text.charCodeAt(index - 1);
    return !(previous >= 0xd800 && previous <= 0xdbff);
  }
  return false;
}

/** A JSON string literal; lone surrogates, which UTF-8 cannot carry, always as escapes. */
export function jsonString(text: string, style: JsonStyle = PLAIN): string {
  let out = '"';
  for (let i = 0; i < text.length; i += 1) {
    const char = text.charAt(i);
    const unit = text.charCodeAt(i);
    if (style.escape === 'all' || isLoneSurrogate(text, i)) out += unicodeEscape(unit);
    else if (SHORT_ESCAPES[char]) out += SHORT_ESCAPES[char];
    else if (unit < 0x20) out += unicodeEscape(unit);
    else if (char === '/' && style.escapeSlash) out += '\\/';
    else if (unit > 0x7e && style.escape === 'nonAscii') out += unicodeEscape(unit);
    else out += char;
  }
  return `${out}"`;
}

/** The JSON text of `value` in `style`: objects by their own enumerable keys (`__proto__` too). */
export function jsonText(value: unknown, style: JsonStyle = PLAIN): string {
  const s = style.space;
  if (value instanceof RawJson) return value.text;
  if (value === null || typeof value === 'boolean') return String(value);
  if (typeof value === 'number') return JSON.stringify(value);
  if (typeof value === 'string') return jsonString(value, style);
  if (Array.isArray(value)) {
    return `[${s}${value.map((item) => jsonText(item, style)).join(`${s},${s}`)}${s}]`;
  }
  const entries =
    value instanceof JsonEntries ? [...value.entries] : Object.entries(value as object);
  if (style.reverseKeys) entries.reverse();
  const members = entries.map(
    ([key, item]) => `${jsonString(key, style)}${s}:${s}${jsonText(item, style)}`,
  );
  return `{${s}${members.join(`${s},${s}`)}${s}}`;
}

/** A plain object with exactly these own keys, `__proto__` as a key like any other. */
export function objectOf(
  entries: ReadonlyArray<readonly [string, unknown]>,
): Record<string, unknown> {
  return Object.fromEntries(entries);
}

/** Structural equality of JSON values, key order aside (the interface's "same JSON value"). */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const keys = Object.keys(value).sort();
  const record = value as Record<string, unknown>;
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`).join(',')}}`;
}
