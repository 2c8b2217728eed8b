import { useState } from 'preact/hooks';
import { useAction, type Action } from '../../parts/use-action.js';

export interface Entries<T> {
  readonly add: Action;
  readonly edit: Action;
  /** The entry whose edit form is open. */
  readonly editing: T | undefined;
  setEditing(entry: T | undefined): void;
  /** The name of the entry saved last, for the screen to say so. */
  readonly saved: string | undefined;
  /** Bumped after each addition: the add form, keyed by it, comes back empty. */
  readonly addRound: number;
  submitAdd(name: string, work: () => Promise<void>): Promise<void>;
  submitEdit(name: string, work: () => Promise<void>): Promise<void>;
}

/** A screen's list of entries: an add form and an edit form, each with its own refusal, both reloading the list. */
export function useEntries<T>(reload: () => void): Entries<T> {
  const add = useAction(reload);
  const edit = useAction(reload);
  const [editing, setEditing] = useState<T | undefined>();
  const [saved, setSaved] = useState<string | undefined>();
  const [addRound, setAddRound] = useState(0);
  return {
    add, edit, editing, setEditing, saved, addRound,
    submitAdd: (name, work) => add.run(async () => {
      await work();
      setSaved(name);
      setAddRound((r) => r + 1);
    }),
    submitEdit: (name, work) => edit.run(async () => {
      await work();
      setSaved(name);
      setEditing(undefined);
    }),
  };
}
