import fs from 'node:fs';
import { sep } from 'node:path';
import { ROOT_TOKEN } from '../tracer/format.js';
import { ArraySort, StringIncludes, StringReplaceAll, Utf8Text } from '../tracer/primordials.js';

/** An output as its digest sees it: the same text or bytes, or a text with the root replaced. */
export type Masked<T> = T | string;

/**
 * What a recorded output is digested as: the project root, wherever the project is checked out,
 * replaced by ROOT_TOKEN, so a bump's base (a worktree) and head (the project) that print a path,
 * as a test runner's stack trace does, print the same. Only the record sees it: the program's
 * bytes go out as they were. The root is matched as given and as its real path (modules' file
 * names are real paths: macOS `/var` is `/private/var`), and with `/` on Windows (file URLs).
 */
export class RootMask {
  private readonly forms: readonly string[];

  constructor(root: string) {
    // Indexed, without Set or spread: a family may make its mask in the program's time (deferred.ts).
    const forms = [root];
    const resolved = realPath(root);
    if (resolved !== root) forms[forms.length] = resolved;
    for (let i = 0, given = forms.length; sep === '\\' && i < given; i++) {
      const slashed = StringReplaceAll(forms[i]!, '\\', '/');
      if (slashed !== forms[i]) forms[forms.length] = slashed;
    }
    // The longest first: `/var/x` is inside `/private/var/x`.
    this.forms = ArraySort(forms, (x, y) => y.length - x.length);
  }

  text(text: string): string {
    // Indexed: the program may have replaced Array.prototype[Symbol.iterator] by now.
    let masked = text;
    for (let i = 0; i < this.forms.length; i++) {
      const form = this.forms[i]!;
      if (StringIncludes(masked, form)) masked = StringReplaceAll(masked, form, ROOT_TOKEN);
    }
    return masked;
  }

  /** A view's bytes, or their text with the root replaced where they name it. */
  bytes(view: ArrayBufferView): Masked<ArrayBufferView> {
    const text = Utf8Text(view);
    const masked = this.text(text);
    return masked === text ? view : masked;
  }
}

function realPath(path: string): string {
  try {
    return fs.realpathSync(path);
  } catch {
    return path; // a root that is gone: its outputs name it as given
  }
}
