// Test-wide setup: bring Node 20 what the test tooling expects from Node 22.

// nock 15 intercepts through @mswjs/interceptors, which calls Promise.withResolvers (Node >= 22);
// the App supports Node 20, so the tests bring the one missing function along.
if (typeof (Promise as { withResolvers?: unknown }).withResolvers !== "function") {
  Object.defineProperty(Promise, "withResolvers", {
    configurable: true,
    writable: true,
    value<T>() {
      let resolve!: (value: T | PromiseLike<T>) => void;
      let reject!: (reason?: unknown) => void;
      const promise = new Promise<T>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      return { promise, resolve, reject };
    },
  });
}
