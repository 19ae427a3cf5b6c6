/**
 * Matches `uri` against an RFC 6570 level 1 template: `{name}` takes one non-empty path segment
 * (no `/`, `?` or `#`), `{+name}` the non-empty rest up to a query or fragment. Returns the
 * variables percent-decoded, or undefined when the URI does not fit (or its encoding is bad).
 */
export function matchUriTemplate(
  template: string,
  uri: string,
): Record<string, string> | undefined {
  const names: string[] = [];
  let pattern = '^';
  let last = 0;
  for (const match of template.matchAll(/\{(\+?)([A-Za-z0-9_]+)\}/g)) {
    pattern += escapeRegExp(template.slice(last, match.index));
    pattern += match[1] === '+' ? '([^?#]+)' : '([^/?#]+)';
    names.push(match[2] as string);
    last = match.index + match[0].length;
  }
  pattern += `${escapeRegExp(template.slice(last))}$`;
  const found = new RegExp(pattern).exec(uri);
  if (!found) return undefined;
  const variables: Record<string, string> = {};
  try {
    for (const [index, name] of names.entries()) {
      variables[name] = decodeURIComponent(found[index + 1] as string);
    }
  } catch {
    return undefined;
  }
  return variables;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
