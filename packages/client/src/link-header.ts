/** One link of an RFC 8288 `Link` header: its target as written and its `rel` values. */
export interface Link {
  readonly target: string;
  readonly rels: readonly string[];
}

// `<target>` followed by `; name=value` parameters, up to the comma that starts the next link.
// Targets cannot contain `>`, and parameter values here (rel) are tokens or quoted strings
// without commas, which is all this API sends.
const LINK = /<([^>]*)>((?:\s*;\s*[^;,]*)*)/g;
const REL = /;\s*rel\s*=\s*(?:"([^"]*)"|([^\s;,]+))/i;

export function parseLinkHeader(header: string | null): Link[] {
  if (!header) return [];
  return [...header.matchAll(LINK)].map(([, target = '', params = '']) => {
    const rel = REL.exec(params);
    const relText = rel?.[1] ?? rel?.[2] ?? '';
    return { target, rels: relText.toLowerCase().split(/\s+/).filter(Boolean) };
  });
}

/** The target of the first link with relation `rel`, if any. */
export function findLink(header: string | null, rel: string): string | undefined {
  return parseLinkHeader(header).find((link) => link.rels.includes(rel))?.target;
}
