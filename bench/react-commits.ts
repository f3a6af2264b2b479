// For bench/console-trace.ts --commits: a stand-in for the React DevTools hook, installed before the
// page's code runs, that lists after each React commit which components' state changed in it (the
// updates that caused it): "Name#hook[before→after] < parents". Renders that happen before a page's
// first paint show up as commits right after the first one; with a build that keeps names
// (`npx vite build --minify false`) each line says which component asked for it.
export const REACT_COMMITS_PROBE = `(() => {
  const nameOf = (f) => {
    const t = f.type;
    if (!t || typeof t === "string") return "";
    return t.displayName || t.name || (t.render && (t.render.displayName || t.render.name)) || "?";
  };
  const parents = (f) => {
    const out = [];
    for (let p = f.return; p && out.length < 5; p = p.return) { const n = nameOf(p); if (n) out.push(n); }
    return out.join("<");
  };
  const brief = (x) => {
    if (x === null || typeof x !== "object") return String(x).slice(0, 24);
    return Array.isArray(x) ? "array(" + x.length + ")" : "{" + Object.keys(x).slice(0, 3).join(",") + "}";
  };
  window.__reactCommits = [];
  window.__REACT_DEVTOOLS_GLOBAL_HOOK__ = {
    supportsFiber: true, renderers: new Map(), isDisabled: false,
    inject(renderer) { this.renderers.set(1, renderer); return 1; },
    onScheduleFiberRoot() {}, onPostCommitFiberRoot() {}, checkDCE() {},
    onCommitFiberRoot(_id, root) {
      const changed = new Set();
      const walk = (fiber) => {
        for (let f = fiber; f; f = f.sibling) {
          const before = f.alternate;
          if (before && (f.tag === 0 || f.tag === 11 || f.tag === 15)) {
            // Function components: each state hook (one with an update queue) whose value changed.
            for (let h = f.memoizedState, g = before.memoizedState, i = 0; h && g; h = h.next, g = g.next, i++)
              if (h.queue && h.memoizedState !== g.memoizedState)
                changed.add(nameOf(f) + "#" + i + "[" + brief(g.memoizedState) + "→" + brief(h.memoizedState) + "] < " + parents(f));
          } else if (before && f.tag === 1 && f.memoizedState !== before.memoizedState) {
            changed.add(nameOf(f) + " (class) < " + parents(f));
          }
          if (f.child) walk(f.child);
        }
      };
      walk(root.current.child);
      window.__reactCommits.push(Math.round(performance.now()) + " commit: " + [...changed].join(" | "));
    },
  };
})();`;
