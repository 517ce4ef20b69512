// Talking to the flow editor's JSON API (portal/flows/api.py).

function csrf() {
  const meta = document.querySelector('meta[name="csrf-token"]');
  return meta ? meta.getAttribute("content") : "";
}

// The editor's JSON API under `base`: `api(method, path, body)` answers
// {status, ok, data}, never rejects. `body`: an object sent as JSON, or a file (Blob)
// sent as it is. No answer at all (offline, server down) is status 0 with
// `messages.offline`; an answer that is not the API's JSON (a sign-in page after the
// session ended, a proxy's error page) is a failure with `messages.unexpected`.
export function makeApi(base, messages) {
  return async function api(method, path, body) {
    let response;
    try {
      response = await fetch(base + path, {
        method,
        credentials: "same-origin",
        headers: { Accept: "application/json", "Content-Type": "application/json", "X-CSRFToken": csrf() },
        body: body === undefined || body instanceof Blob ? body : JSON.stringify(body),
      });
    } catch {
      return { status: 0, ok: false, data: { error: { code: "offline", message: messages.offline } } };
    }
    const data = await response.json().catch(() => null);
    if (response.redirected || data === null || typeof data !== "object") {
      const status = response.ok ? 401 : response.status; // ok but not ours: signed out
      return { status, ok: false, data: { error: { code: "unexpected", message: messages.unexpected } } };
    }
    return { status: response.status, ok: response.ok, data };
  };
}

export function errorMessage(answer) {
  return answer.data && answer.data.error ? answer.data.error.message : String(answer.status);
}
