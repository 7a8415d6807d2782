/**
 * Names a declared repo cannot hold twice: the service may not tell names apart by case, and a name is one policy
 * whatever its kind (declared/policies.ts refuses both), and on a file system that ignores case the files would
 * overwrite each other. Every resource of such a group is left out, with the reason.
 */
export function sameNames<T extends { name: string }>(items: readonly T[], kindOf: (item: T) => string): Map<T, string> {
  const byKey = new Map<string, T[]>();
  for (const item of items) {
    const key = item.name.toLowerCase();
    byKey.set(key, [...(byKey.get(key) ?? []), item]);
  }
  const reasons = new Map<T, string>();
  for (const group of byKey.values()) {
    if (group.length < 2) continue;
    const others = (item: T) => group.filter((other) => other !== item).map((other) => `"${other.name}" (${kindOf(other)})`).join(', ');
    for (const item of group) {
      const what = group.every((other) => other.name === item.name) ? 'is also the name of' : 'differs only in case from';
      reasons.set(item, `its name ${what} ${others(item)}, and a declared repo holds one name once, whatever its case or kind`);
    }
  }
  return reasons;
}
