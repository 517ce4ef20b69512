// The toolbar and the keyboard shortcuts beside it: add a state, delete the selection,
// undo and redo (Ctrl+Z, Ctrl+Shift+Z or Ctrl+Y; one step per save, see history.js),
// auto-layout, fit and zoom. While a version is on show nothing on it may change the
// draft.

const byId = (id) => document.getElementById(id);
const typing = () => /^(INPUT|TEXTAREA|SELECT)$/.test(document.activeElement.tagName);

export class Toolbar {
  // `isModalOpen()`: the publish confirmation is open, and nothing acts behind it.
  constructor({ store, commands, canvas, text, isModalOpen }) {
    this.store = store;
    this.text = text;
    this.discardReason = byId("discard-reason");
    this.deleteButton = byId("delete-selected");
    this.undoButton = byId("undo");
    this.redoButton = byId("redo");
    byId("add-state").addEventListener("click", () => commands.addStateInView());
    this.deleteButton.addEventListener("click", () => commands.removeSelected());
    this.undoButton.addEventListener("click", () => store.undo());
    this.redoButton.addEventListener("click", () => store.redo());
    byId("auto-layout").addEventListener("click", () => commands.autoLayout());
    byId("fit").addEventListener("click", () => canvas.fit());
    byId("zoom-in").addEventListener("click", () => canvas.zoom(1.2));
    byId("zoom-out").addEventListener("click", () => canvas.zoom(1 / 1.2));
    document.addEventListener("keydown", (event) => {
      if (isModalOpen()) return;
      // The outline's own Delete removes the item it is on.
      if (event.key === "Delete" && !typing() && store.selected && !event.target.closest("#outline")) commands.removeSelected();
    });
    document.addEventListener("keydown", (event) => {
      if (isModalOpen() || !(event.ctrlKey || event.metaKey) || event.altKey) return;
      // In a text field the browser's own undo applies to the text.
      if (typing()) return;
      const key = event.key.toLowerCase();
      if (key === "z" && !event.shiftKey) {
        event.preventDefault();
        store.undo();
      } else if ((key === "z" && event.shiftKey) || key === "y") {
        event.preventDefault();
        store.redo();
      }
    });
  }

  refresh() {
    const { store } = this;
    const readOnly = Boolean(store.viewing);
    const locked = readOnly || store.conflict;
    this.deleteButton.disabled = !store.selected || readOnly;
    // A control that cannot act says why.
    this.deleteButton.title = store.selected || readOnly ? "" : this.text.delete_nothing;
    this.undoButton.disabled = locked || !store.canUndo;
    this.redoButton.disabled = locked || !store.canRedo;
    for (const id of ["add-state", "auto-layout", "import-file"]) byId(id).disabled = readOnly;
    // Discarding needs a saved draft; without one the button says why it cannot act.
    const noDraft = !store.doc || !store.doc.saved;
    byId("discard").disabled = readOnly || noDraft;
    this.discardReason.textContent = noDraft && !readOnly ? this.text.discard_nothing : "";
    this.discardReason.hidden = !noDraft || readOnly;
    document.querySelector('label[for="import-file"]').setAttribute("aria-disabled", readOnly ? "true" : "false");
  }
}
