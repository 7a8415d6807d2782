/** Where a source's declared tree is, once checked out. */
export interface Checkout {
  /** Folder holding the declared tree: the local folder, or the git checkout joined with `git.path`. */
  dir: string;
  /** The commit checked out, or null for a local folder. */
  revision: string | null;
}

export interface SourceWatch {
  close(): Promise<void>;
}

/** Where the declared tree of one configured source comes from: a local folder or a git repository. */
export interface Source {
  readonly kind: 'path' | 'git';
  /**
   * Brings the declared tree up to date (a git source fetches its ref; a local folder is read where it is).
   * `signal` aborts a fetch under way. Errors never carry the credentials of a git URL.
   */
  checkout(signal?: AbortSignal): Promise<Checkout>;
  /**
   * Calls `onChange` once per burst of changes to files that can change the declared state, `debounceMs` after the
   * last one, with the paths of that burst (relative to the source, sorted). Resolves with null for a source that
   * cannot be watched (git: its pushes arrive by webhook, and its checkout is never watched). Rejects when the folder
   * cannot be watched (the system's limit of watches reached); `onFailed` is told when a watch that started ends so.
   */
  watch(onChange: (changed: readonly string[]) => void, debounceMs?: number, onFailed?: (error: Error) => void): Promise<SourceWatch | null>;
}
