// A tiny element builder: h('button', { onclick }, 'Save'). Text is always text (no innerHTML).

type Attrs = Record<string, unknown>;
type Child = Node | string | number | null | undefined | false | Child[];

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value == null || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') {
      el.addEventListener(key.slice(2), value as EventListener);
    } else if (key === 'class') {
      el.className = String(value);
    } else if (key === 'dataset') {
      Object.assign(el.dataset, value);
    } else if (key in el && key !== 'role' && !key.startsWith('aria-')) {
      (el as unknown as Record<string, unknown>)[key] = value;
    } else {
      el.setAttribute(key, value === true ? '' : String(value));
    }
  }
  append(el, children);
  return el;
}

function append(el: Node, children: Child[]): void {
  for (const c of children) {
    if (c == null || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.appendChild(typeof c === 'object' ? c : document.createTextNode(String(c)));
  }
}

export function clear(el: Element, ...children: Child[]): void {
  el.replaceChildren();
  append(el, children);
}

/** A modal dialog (native <dialog>: focus trap, Escape, and role="dialog" for free). */
export function modal(title: string, body: Child, buttons: { label: string; primary?: boolean; danger?: boolean; action: () => void | boolean | Promise<void | boolean> }[]): HTMLDialogElement {
  const heading = h('h2', { id: `dlg-${Math.random().toString(36).slice(2)}` }, title);
  const dialog = h('dialog', { 'aria-labelledby': heading.id, class: 'modal' });
  const close = () => { dialog.close(); dialog.remove(); };
  const form = h('form', { method: 'dialog', onsubmit: (e: Event) => e.preventDefault() },
    heading, body,
    h('div', { class: 'buttons' }, buttons.map((b) => h('button', {
      type: b.primary ? 'submit' : 'button', class: b.danger ? 'danger' : b.primary ? 'primary' : '',
      onclick: async (e: Event) => {
        e.preventDefault();
        const keep = await b.action();
        if (keep !== true) close();
      },
    }, b.label))));
  dialog.appendChild(form);
  dialog.addEventListener('close', () => dialog.remove());
  document.body.appendChild(dialog);
  dialog.showModal();
  return dialog;
}

let toastTimer: ReturnType<typeof setTimeout> | undefined;
export function toast(message: string, kind: 'ok' | 'error' = 'ok'): void {
  const el = document.getElementById('toast');
  if (!el) return;
  el.textContent = message;
  el.className = `toast ${kind}`;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { el.textContent = ''; el.className = 'toast'; }, kind === 'error' ? 8000 : 3000);
}
