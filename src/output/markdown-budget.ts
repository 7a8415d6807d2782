/** Fitting a Markdown document into a character budget by shortening its lists, never by cutting text mid-way. */

/** One entry of a list: a one-line form, and optionally a longer one (made only when it may be shown). */
export interface ListItem {
  brief: string;
  full?: () => string;
}

/** A list with its heading and closing lines, which are always shown when the list is. */
export interface Listing {
  title: string[];
  items: ListItem[];
  footer: string[];
}

export interface Document {
  /** Always shown. */
  head: string[];
  sections: Array<{ header: string[]; listings: Listing[] }>;
  limit: number;
}

/** Room kept for each list's "… and N more" line. */
const MORE_LINE = 40;
/** Room kept for the line that says where the details end. */
const DETAILS_LINE = 80;

/**
 * Lays the document out within `limit` characters: the head, headers, titles and footers first; then, in order,
 * the brief form of every item that fits (a list whose next item does not fit ends with "… and N more"); then
 * items are upgraded to their full form, in order, until one does not fit.
 */
export function fitToBudget(doc: Document): string {
  const size = (lines: readonly string[]) => lines.reduce((n, line) => n + line.length + 1, 0);
  const listings = doc.sections.flatMap((s) => s.listings);
  let left = doc.limit - 1 - size(doc.head)
    - doc.sections.reduce((n, s) => n + size(s.header), 0)
    - listings.reduce((n, l) => n + size(l.title) + size(l.footer) + MORE_LINE, 0)
    - DETAILS_LINE;

  const shown = new Map<Listing, number>();
  for (const listing of listings) {
    let count = 0;
    for (const item of listing.items) {
      const cost = item.brief.length + 1;
      if (cost > left) break;
      left -= cost;
      count += 1;
    }
    shown.set(listing, count);
  }
  const full = new Map<ListItem, string>();
  // The first item left brief for want of room: a line there says where the details end.
  let briefFrom: ListItem | null = null;
  upgrade: for (const listing of listings) {
    for (const item of listing.items.slice(0, shown.get(listing))) {
      if (item.full === undefined) continue;
      const text = item.full();
      const extra = text.length - item.brief.length;
      if (extra > left) {
        briefFrom = item;
        break upgrade;
      }
      left -= extra;
      full.set(item, text);
    }
  }
  const detailed = listings.flatMap((l) => l.items).filter((item) => item.full !== undefined).length;

  const lines = [...doc.head];
  for (const section of doc.sections) {
    lines.push(...section.header);
    for (const listing of section.listings) {
      const count = shown.get(listing) ?? 0;
      lines.push(...listing.title);
      for (const item of listing.items.slice(0, count)) {
        if (item === briefFrom) lines.push(`- _(details of the first ${full.size} changes; all ${detailed} in the JSON plan)_`);
        lines.push(full.get(item) ?? item.brief);
      }
      if (count < listing.items.length) lines.push(`- … and ${listing.items.length - count} more`);
      lines.push(...listing.footer);
    }
  }
  return `${lines.join('\n').replace(/\n+$/, '')}\n`;
}
