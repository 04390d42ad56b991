/** The URL of the `Link` entry with `rel`, if the header has one (RFC 8288). */
export function linkWithRel(header: string | undefined, rel: string): string | undefined {
  if (header === undefined) return undefined;
  for (const entry of header.matchAll(/<([^>]*)>([^,]*)/g)) {
    const rels = /;\s*rel="?([^";]*)"?/i.exec(entry[2] ?? '')?.[1]?.split(/\s+/) ?? [];
    if (rels.includes(rel)) return entry[1];
  }
  return undefined;
}
