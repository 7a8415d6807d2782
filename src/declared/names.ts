/** Policy and agent pool names: letters, digits, `-` and `_`. */
const NAME = /^[A-Za-z0-9_-]+$/;

export function isValidName(name: string): boolean {
  return NAME.test(name);
}

export const NAME_RULE = 'use only letters, digits, - and _';

/** Splits `folder/stem.ext` into its folder (with `/` separators, '' at the top), stem and extension (with the dot). */
export function splitPath(rel: string): { folder: string; stem: string; ext: string } {
  const slash = rel.lastIndexOf('/');
  const folder = slash < 0 ? '' : rel.slice(0, slash);
  const base = rel.slice(slash + 1);
  const dot = base.lastIndexOf('.');
  if (dot <= 0) return { folder, stem: base, ext: '' };
  return { folder, stem: base.slice(0, dot), ext: base.slice(dot) };
}

export function byName<T extends { name: string }>(a: T, b: T): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}
