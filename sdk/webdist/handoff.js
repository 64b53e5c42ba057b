// The page a phone opens from a hand-off QR code (docs/sdk.md, "Continue
// on a phone"): the hand-off token is the URL's fragment, which browsers
// never send to a server. It is read once and removed from the address
// bar, then redeemed by the SDK for a session of this phone's own.
(function () {
  var token = location.hash.slice(1);
  if (history.replaceState) history.replaceState(null, '', location.pathname);
  window.handoffEvents = [];
  function log(kind, data) {
    window.handoffEvents.push({ kind: kind, data: data });
  }
  TambuaVerification.init({
    handoffToken: token,
    onStepChange: function (s) { log('step', s); },
    onSuccess: function (r) { log('success', { status: r.status, verification_id: r.verification_id }); },
    onFailure: function (e) { log('error', { code: e.code, message: e.message }); },
    onCancel: function () { log('cancel', {}); },
  });
})();
