// A component whose code is a chunk of its own, fetched on `preload()` or on first render. Once the
// chunk has arrived it renders directly, without suspending. React.lazy suspends on its first
// render even when its promise has settled, and React holds back the commit that replaces a
// Suspense fallback until 300 ms after the fallback appeared: a page whose chunk was preloaded
// while the session loaded still waited a third of a second behind its loading screen.
import { type ComponentType, lazy } from "react";

export type Preloadable<P extends object> = {
  Component: ComponentType<P>;
  /** Starts the download; its promise settles with the chunk (a failure is the render's to show). */
  preload: () => Promise<ComponentType<P>>;
};

export function preloadable<P extends object>(load: () => Promise<ComponentType<P>>): Preloadable<P> {
  let loaded: ComponentType<P> | undefined;
  let loading: Promise<ComponentType<P>> | undefined;
  const preload = () => {
    loading ??= load().then((component) => {
      loaded = component;
      return component;
    });
    return loading;
  };
  // Used only before the chunk is here: it suspends into the caller's Suspense boundary.
  const Lazy = lazy(() => preload().then((component) => ({ default: component })));
  // biome-ignore lint/correctness/noComponentHookFactories: made once per chunk at module level, like React.lazy
  function Component(props: P) {
    const Loaded = loaded;
    return Loaded ? <Loaded {...props} /> : <Lazy {...props} />;
  }
  return { Component, preload };
}
