// Switch the language as soon as one is picked in the header's selector (formerly an inline onchange
// handler, which the Content-Security-Policy forbids). Without JavaScript the form's own button does it.
const select = document.getElementById("language-select");
if (select) select.addEventListener("change", () => select.form.submit());
