import { byCodeUnit } from '../order.js';

/** Policy and agent pool names: the rule they follow (letters, digits, `-` and `_`) and their sort order. */
const NAME = /^[A-Za-z0-9_-]+$/;

export function isValidName(name: string): boolean {
  return NAME.test(name);
}

export const NAME_RULE = 'use only letters, digits, - and _';

export function byName<T extends { name: string }>(a: T, b: T): number {
  return byCodeUnit(a.name, b.name);
}
