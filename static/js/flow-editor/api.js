// Talking to the flow editor's JSON API (portal/flows/api.py).

function csrf() {
  var meta = document.querySelector('meta[name="csrf-token"]');
  return meta ? meta.getAttribute("content") : "";
}

// The editor's JSON API under `base`: `api(method, path, body)` answers
// {status, ok, data}, never rejects. `body`: an object sent as JSON, or a file (Blob)
// sent as it is. No answer at all (offline, server down) is status 0 with `offline`
// as its message.
export function makeApi(base, offline) {
  return function api(method, path, body) {
    return fetch(base + path, {
      method: method,
      credentials: "same-origin",
      headers: { Accept: "application/json", "Content-Type": "application/json", "X-CSRFToken": csrf() },
      body: body === undefined || body instanceof Blob ? body : JSON.stringify(body),
    }).then(function (response) {
      return response.json().catch(function () { return null; }).then(function (data) {
        return { status: response.status, ok: response.ok, data: data };
      });
    }, function () {
      return { status: 0, ok: false, data: { error: { code: "offline", message: offline } } };
    });
  };
}

export function errorMessage(answer) {
  return answer.data && answer.data.error ? answer.data.error.message : String(answer.status);
}
