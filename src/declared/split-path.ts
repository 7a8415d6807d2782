/** Splits `folder/stem.ext` into its folder (with `/` separators, '' at the top), stem and extension (with the dot). */
export function splitPath(rel: string): { folder: string; stem: string; ext: string } {
  const slash = rel.lastIndexOf('/');
  const folder = slash < 0 ? '' : rel.slice(0, slash);
  const base = rel.slice(slash + 1);
  const dot = base.lastIndexOf('.');
  if (dot <= 0) return { folder, stem: base, ext: '' };
  return { folder, stem: base.slice(0, dot), ext: base.slice(dot) };
}
