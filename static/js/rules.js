// The rules page: on a narrow screen the contents start folded, so that the rules come first.
if (!window.matchMedia("(min-width: 64rem)").matches) {
  document.querySelectorAll(".rules-toc details").forEach((el) => { el.open = false; });
}
