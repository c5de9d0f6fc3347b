/**
 * Preloaded (`node --require`) into the Node processes the engine sandbox's CLI starts: the
 * dynamic-provider plugin and project programs. `@pulumi/pulumi/runtime` loads the closure
 * serializer's dependencies up front: npm's Arborist (with pacote, cacache, tar…), only used by
 * `computeCodePaths`, and the TypeScript compiler, only used to serialize a function. A dynamic
 * provider's process never calls either, yet loading them was about half of its start-up CPU, paid
 * once for every engine operation.
 *
 * Each of these modules is resolved as usual (a missing one fails as before) and handed over as a
 * stand-in that loads the real module on first use, so a process that uses it gets the same module,
 * only later. CommonJS only: that is how `@pulumi/pulumi` loads them.
 */
const Module = require("node:module");

const DEFERRED = new Set(["@npmcli/arborist", "typescript"]);

const load = Module._load;
Module._load = function loadDeferred(request, parent, isMain) {
  if (!DEFERRED.has(request)) return load.apply(this, arguments);
  Module._resolveFilename(request, parent, isMain);
  let real;
  const target = () => (real ??= load.call(this, request, parent, isMain));
  return new Proxy(
    {},
    {
      // TypeScript's `__importStar` reads `__esModule` at import time: answering it keeps the stand-in
      // (rather than a copy of every export, which would load the module at once).
      get: (_, key) => (key === "__esModule" ? true : Reflect.get(target(), key)),
      has: (_, key) => Reflect.has(target(), key),
      ownKeys: () => Reflect.ownKeys(target()),
      getOwnPropertyDescriptor: (_, key) => {
        const descriptor = Reflect.getOwnPropertyDescriptor(target(), key);
        // A proxy may not report a property as non-configurable that its (empty) target lacks.
        return descriptor && { ...descriptor, configurable: true };
      },
    },
  );
};
