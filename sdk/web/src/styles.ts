import type { Customization } from '../../core/src';

/** The SDK's stylesheet; every class is prefixed tmb- so a host page's rules do not collide. */
export function css(c: Customization): string {
  const t = c.theme;
  return `
.tmb-root{position:fixed;inset:0;z-index:2147483000;background:${t.backgroundColor};color:${t.textColor};
font:16px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;overflow:hidden;-webkit-font-smoothing:antialiased}
.tmb-root *{box-sizing:border-box}
.tmb-screen{position:absolute;inset:0;display:flex;flex-direction:column;align-items:center;justify-content:center;padding:24px;text-align:center;gap:14px}
.tmb-landing{background-size:cover;background-position:center}
.tmb-logo{max-height:48px;max-width:60%}
.tmb-hero{max-width:70%;max-height:30vh;border-radius:12px}
.tmb-h1{font-size:24px;font-weight:700;margin:0}
.tmb-p{margin:0;opacity:.85;max-width:32em}
.tmb-btn{appearance:none;border:0;border-radius:999px;padding:13px 28px;font:600 16px system-ui,sans-serif;cursor:pointer;
background:${t.primaryColor};color:${t.buttonTextColor};min-width:180px}
.tmb-btn:focus-visible{outline:3px solid ${t.accentColor};outline-offset:2px}
.tmb-btn2{background:${t.secondaryColor};color:${t.textColor}}
.tmb-link{background:none;border:0;color:inherit;text-decoration:underline;cursor:pointer;font:inherit;opacity:.9}
.tmb-close{position:absolute;top:10px;right:12px;z-index:3;background:rgba(0,0,0,.35);color:#fff;border:0;border-radius:999px;width:36px;height:36px;padding:0;font-size:22px;line-height:1;display:flex;align-items:center;justify-content:center;cursor:pointer}
.tmb-cam{background:#000;color:#fff;padding:0}
.tmb-video{position:absolute;inset:0;width:100%;height:100%;object-fit:cover}
.tmb-frame{position:absolute;border:3px solid ${c.camera.idFrameColor};border-radius:14px;box-shadow:0 0 0 200vmax rgba(0,0,0,.55);transition:border-color .2s}
.tmb-frame.tmb-ok{border-color:#3ccf6e}
.tmb-oval{border-radius:50%;border-color:${c.camera.selfieOutlineColor}}
.tmb-top{position:absolute;top:0;left:0;right:0;padding:14px 56px 0;z-index:2;text-shadow:0 1px 3px #000}
.tmb-top .tmb-h1{font-size:19px}
.tmb-top .tmb-p{margin:0 auto}
.tmb-guide{position:absolute;left:50%;transform:translateX(-50%);z-index:2;background:rgba(0,0,0,.7);border-radius:18px;padding:6px 16px;font-size:15px;width:max-content;text-align:center}
.tmb-guide.tmb-ok{background:#1f8a4c}
.tmb-bottom{position:absolute;bottom:14px;left:0;right:0;z-index:2;display:flex;justify-content:center;align-items:center}
.tmb-bottom .tmb-alt{position:absolute;left:calc(50% + 52px);text-align:left}
.tmb-shutter{width:68px;height:68px;border-radius:50%;border:5px solid rgba(255,255,255,.6);background:${c.camera.captureButtonColor};cursor:pointer}
.tmb-shutter:focus-visible{outline:3px solid ${t.accentColor}}
.tmb-review-img{max-width:min(92vw,590px);max-height:55vh;border-radius:10px;box-shadow:0 4px 18px rgba(0,0,0,.25)}
.tmb-row{display:flex;gap:12px;flex-wrap:wrap;justify-content:center}
.tmb-spin{width:44px;height:44px;border:4px solid ${t.secondaryColor};border-top-color:${t.primaryColor};border-radius:50%;animation:tmb-r 1s linear infinite}
@keyframes tmb-r{to{transform:rotate(360deg)}}
.tmb-tick{width:64px;height:64px;border-radius:50%;background:${t.primaryColor};color:${t.buttonTextColor};font-size:36px;line-height:64px}
.tmb-file{display:none}
.tmb-qr{width:240px;height:auto;image-rendering:crisp-edges;image-rendering:pixelated;background:#fff}
`;
}
