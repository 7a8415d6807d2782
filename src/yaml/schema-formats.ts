/**
 * The two formats the published schemas use, checked as the code that reads the values reads them. The validators of
 * `schema-validators.generated.ts` call these by name.
 */
export const FORMATS: Readonly<Record<'date-time' | 'regex', (text: string) => boolean>> = {
  'date-time': (text) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(text) && !Number.isNaN(Date.parse(text)),
  regex: (text) => {
    try {
      new RegExp(text);
      return true;
    } catch {
      return false;
    }
  },
};
