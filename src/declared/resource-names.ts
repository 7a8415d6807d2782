/** Policy and agent pool names: the rule they follow (letters, digits, `-` and `_`) and their sort order. */
const NAME = /^[A-Za-z0-9_-]+$/;

export function isValidName(name: string): boolean {
  return NAME.test(name);
}

export const NAME_RULE = 'use only letters, digits, - and _';

export function byName<T extends { name: string }>(a: T, b: T): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}
