import { createHash } from 'node:crypto';

/** Seconds between the page's updates. */
export const UPDATE_SECONDS = 15;

/**
 * The page's one script: every UPDATE_SECONDS it fetches the page again (same origin, same credentials) and swaps
 * in its `main` and its time line, keeping open every "Recent passes" that was open. A reload would close them.
 * The new markup is the server's, with every value already escaped; nothing else is loaded.
 */
export const STATUS_PAGE_SCRIPT = `(() => {
  const update = async () => {
    try {
      const response = await fetch(location.pathname, { cache: 'no-store', credentials: 'same-origin' });
      if (!response.ok) return;
      const next = new DOMParser().parseFromString(await response.text(), 'text/html');
      const open = new Set([...document.querySelectorAll('section.source')].filter((s) => s.querySelector('details[open]')).map((s) => s.dataset.source));
      const main = next.querySelector('main');
      const meta = next.querySelector('header .meta');
      if (main === null) return;
      document.querySelector('main').replaceWith(main);
      if (meta !== null) document.querySelector('header .meta').replaceWith(meta);
      for (const section of document.querySelectorAll('section.source')) {
        const details = section.querySelector('details');
        if (details !== null && open.has(section.dataset.source)) details.open = true;
      }
    } catch {}
  };
  setInterval(update, ${UPDATE_SECONDS * 1000});
})();`;

/** The CSP source that allows exactly this script. */
export const STATUS_PAGE_SCRIPT_HASH = `'sha256-${createHash('sha256').update(STATUS_PAGE_SCRIPT).digest('base64')}'`;
