// Where a field's name may wrap. The drawer's tables are narrow (a
// phone, a 28% column), and a long path such as
// settings.recording.retentionPolicyName broke inside a word. A name
// breaks between its words instead: after a separator (. _ - / [ ] :)
// and before the capital that starts a camelCase word (or a digit run
// after letters). A single word wider than its column still breaks,
// anywhere (the tables' overflow-wrap), rather than widening the drawer.

/** fieldParts splits a field's name or path where it may wrap; the parts
 * joined are the name. */
export function fieldParts(name: string): string[] {
  const parts: string[] = [];
  let start = 0;
  for (let i = 1; i < name.length; i++) {
    const prev = name[i - 1]!, c = name[i]!;
    const afterSeparator = "._-/[]:".includes(prev) && !"._-/[]:".includes(c);
    const camel = /[A-Z]/.test(c) && /[a-z0-9]/.test(prev);
    const digits = /[0-9]/.test(c) && /[A-Za-z]/.test(prev);
    if (afterSeparator || camel || digits) {
      parts.push(name.slice(start, i));
      start = i;
    }
  }
  parts.push(name.slice(start));
  return parts;
}
