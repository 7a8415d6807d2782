/** A count with its noun, singular or plural: `count(1, 'agent pool')` is "1 agent pool", `count(2, 'policy', 'policies')` "2 policies". */
export function count(n: number, singular: string, plural = `${singular}s`): string {
  return `${n} ${n === 1 ? singular : plural}`;
}
