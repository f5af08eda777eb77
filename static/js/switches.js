// The player's switches under the table (sounds, phrases): a form marked data-switch="<field>"
// posts without leaving the table. Its button (aria-pressed) shows the new state at once and the
// server's answer ({<field>: true|false}) settles it; the page hears "switch:changed".
(function () {
  "use strict";

  function show(form, on) {
    var button = form.querySelector("[aria-pressed]");
    if (button) {
      button.setAttribute("aria-pressed", on ? "true" : "false");
      button.textContent = on ? button.dataset.textOn : button.dataset.textOff;
    }
    if (form.elements.on) { form.elements.on.value = on ? "0" : "1"; }
    form.dispatchEvent(new CustomEvent("switch:changed", {
      bubbles: true,
      detail: { field: form.dataset.switch, on: on },
    }));
  }

  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form || !form.dataset || !form.dataset.switch) { return; }
    event.preventDefault();
    var wanted = form.elements.on.value === "1";
    window.fetch(form.action, {
      method: "POST",
      body: new FormData(form),
      headers: { Accept: "application/json" },
      credentials: "same-origin",
    }).then(function (response) {
      return response.ok ? response.json() : null;
    }).then(function (data) {
      if (data && form.dataset.switch in data) { show(form, data[form.dataset.switch]); }
    }).catch(function () {
      form.submit();  // without the script's way, the form's own: the page comes back
    });
    show(form, wanted);
  });
})();
