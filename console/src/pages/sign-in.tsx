import { useEffect, useState } from "preact/hooks";
import { api, ConsoleError, type Session, type SignInMethods } from "../api";

/**
 * Sign-in: through the identity provider (a link: the gateway sends the browser there and back), or
 * with a provisioning key that can read keys and usage, whichever the gateway offers. The key goes
 * in one POST body and is dropped from the page at once: it is never put in a URL, in storage, or
 * kept by a script.
 */
export function SignIn({ onSignedIn }: { onSignedIn: (session: Session) => void }) {
  const [methods, setMethods] = useState<SignInMethods | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    api.signInMethods().then(setMethods, () => setError("The gateway could not be reached."));
  }, []);
  const submit = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const field = form.elements.namedItem("provisioningKey") as HTMLInputElement;
    const secret = field.value;
    field.value = "";
    setBusy(true);
    setError(null);
    try {
      onSignedIn(await api.signIn(secret));
    } catch (failure) {
      setError(failure instanceof ConsoleError ? failure.message : "The gateway could not be reached.");
    } finally {
      setBusy(false);
    }
  };
  return (
    <main id="main" class="sign-in" tabIndex={-1}>
      <h1>Gateway console</h1>
      <p>Read-only: keys are managed as code.</p>
      {methods?.oidc && (
        <p>
          <a class="button" href="/console/oidc/login">
            Sign in with your identity provider
          </a>
        </p>
      )}
      {methods?.provisioningKey && (
        <form onSubmit={submit}>
          <p>Or sign in with a provisioning key that carries keys:read and usage:read.</p>
          <label for="provisioningKey">Provisioning key</label>
          <input id="provisioningKey" name="provisioningKey" type="password" autocomplete="off" spellcheck={false} required placeholder="gwp_…" />
          <button type="submit" disabled={busy}>
            Sign in
          </button>
        </form>
      )}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </main>
  );
}
