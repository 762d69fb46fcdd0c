// When the search box sends its search: at once on Enter, else after a
// settled pause, and then only a search that looks finished, so that
// half-typed text ("actor:", a quote left open, a trailing OR) does not
// fire a request that can only be refused (issue 42).

/** searchPause is how long typing must pause before the search is sent. */
export const searchPause = 700;

/** looksFinished reports whether q can be sent on a pause: its quotes are
 * closed, and it does not end in the middle of a term (a qualifier's
 * colon, a comma of a list, a lone -, an OR, a range's ..). Enter sends
 * whatever is typed, and the service says what is wrong. */
export function looksFinished(q: string): boolean {
  const t = q.trim();
  if (t === "") return true;
  if ((t.match(/"/g) ?? []).length % 2 === 1) return false;
  return !/(:|,|\.\.|(^|\s)-|(^|\s)OR|[<>]=?)$/.test(t);
}
