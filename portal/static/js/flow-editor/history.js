// Undo and redo over snapshots of the graph (its JSON text). The editor records one
// snapshot per save, so a step is what one save sends: typing a label is undone as a
// word, not a letter.

export class EditHistory {
  constructor(limit) {
    this.limit = limit;
    this.reset(null);
  }

  // Begin again from `snapshot`: nothing to undo or redo.
  reset(snapshot) {
    this.back = [];
    this.ahead = [];
    this.current = snapshot;
  }

  // A new snapshot (the same as the current one is no step); it drops what could have
  // been redone. Answers whether it was a step.
  record(snapshot) {
    if (snapshot === this.current) return false;
    this.back.push(this.current);
    if (this.back.length > this.limit) this.back.shift();
    this.ahead = [];
    this.current = snapshot;
    return true;
  }

  canUndo() {
    return this.back.length > 0;
  }

  canRedo() {
    return this.ahead.length > 0;
  }

  // The snapshot one step back (or forward), which becomes the current one; null when
  // there is none.
  undo() {
    return this.#move(this.back, this.ahead);
  }

  redo() {
    return this.#move(this.ahead, this.back);
  }

  #move(from, to) {
    if (!from.length) return null;
    to.push(this.current);
    this.current = from.pop();
    return this.current;
  }
}
