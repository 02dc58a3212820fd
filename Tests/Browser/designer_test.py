#!/usr/bin/python3
"""Drives receipt's web app in headless Chromium (Debian's chromium + chromium-driver, Selenium).

Usage: designer_test.py URL TEMPLATES_DIR PRINTED_DIR [--screenshots DIR]

URL is what `receipt design` prints (with its #token=…). Every step asserts what a user would
see; the first failure exits non-zero with what was expected and what the page showed.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

TIMEOUT = 30


def fail(message):
    print("FAIL: " + message, file=sys.stderr)
    sys.exit(1)


def wait_for(description, condition, timeout=TIMEOUT):
    deadline = time.time() + timeout
    last = None
    while time.time() < deadline:
        try:
            value = condition()
            if value:
                return value
        except Exception as error:  # the page may be mid-update
            last = error
        time.sleep(0.1)
    fail(f"timed out waiting for {description}" + (f" (last error: {last})" if last else ""))


class API:
    """The daemon's API, called directly: the independent side of every check."""

    def __init__(self, url):
        parts = urllib.parse.urlsplit(url)
        self.base = f"{parts.scheme}://{parts.netloc}"
        self.token = urllib.parse.parse_qs(parts.fragment).get("token", [""])[0]

    def call(self, method, path, body=None, content_type="application/json"):
        data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
        request = urllib.request.Request(self.base + path, data=data, method=method)
        request.add_header("Authorization", "Bearer " + self.token)
        if data is not None:
            request.add_header("Content-Type", content_type)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, dict(response.headers), response.read()
        except urllib.error.HTTPError as error:
            return error.code, dict(error.headers), error.read()

    def cut_length_dots(self, source, data, name):
        status, headers, _ = self.call("POST", "/v1/render?format=png",
                                       {"template": name, "source": source, "data": data})
        if status != 200:
            fail(f"the API did not render the editor's template: {status}")
        return int(headers["Receipt-Cut-Length-Dots"])


def main():
    url, templates, printed = sys.argv[1], sys.argv[2], sys.argv[3]
    screenshots = sys.argv[sys.argv.index("--screenshots") + 1] if "--screenshots" in sys.argv else None
    api = API(url)

    options = Options()
    options.binary_location = "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1400,1100", "--force-device-scale-factor=1"]:
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"), options=options)
    try:
        run(driver, api, url, templates, printed, screenshots)
    finally:
        logs = []
        try:
            logs = [entry for entry in driver.get_log("browser") if entry.get("level") == "SEVERE"]
        except Exception:
            pass
        for entry in logs:
            print("browser console: " + entry.get("message", ""), file=sys.stderr)
        driver.quit()
    print("PASS: designer preview, editor highlighting/matching/completion, error marks, save, live queue, retry, keyboard, filters, cancel, Ctrl-S, PDF")


def preview_state(driver):
    return driver.execute_script(
        "const i = document.getElementById('preview');"
        "return {sequence: i.dataset.sequence || '', height: i.naturalHeight, width: i.naturalWidth,"
        " dots: document.getElementById('cut-length').dataset.dots || '',"
        " stale: document.getElementById('preview-box').classList.contains('stale')};")


def wait_for_new_preview(driver, after):
    return wait_for(
        "a new preview",
        lambda: (lambda s: s if s["sequence"] and s["sequence"] != after and not s["stale"] else None)(
            preview_state(driver)))


EDITOR = "document.querySelector('#editor .CodeMirror').CodeMirror"


def editor_text(driver):
    return driver.execute_script(f"return {EDITOR}.getValue()")


def editor_input(driver):
    """The element keys go to: CodeMirror's own input field, as for a user typing."""
    return driver.find_element(By.CSS_SELECTOR, "#editor .CodeMirror textarea")


def hints(driver):
    return [e.text for e in driver.find_elements(By.CSS_SELECTOR, ".CodeMirror-hints .CodeMirror-hint")]


def order(driver):
    return json.loads(driver.execute_script("return document.getElementById('data').value"))


def put_caret(driver, offset):
    driver.execute_script(f"const e = {EDITOR}; e.focus(); e.setCursor(e.posFromIndex(arguments[0]));", offset)


def error_lines(driver):
    return [element.text for element in
            driver.find_elements(By.CSS_SELECTOR, "#editor .error-line .CodeMirror-linenumber")]


def unlabelled_controls(driver):
    """Form controls without an accessible name (label, aria-label, aria-labelledby or text)."""
    return driver.execute_script("""
        return [...document.querySelectorAll('input, select, textarea, button')]
          .filter((e) => !e.closest('[hidden]') && !(e.labels && e.labels.length) && !e.getAttribute('aria-label')
                         && !e.getAttribute('aria-labelledby') && !e.textContent.trim())
          .map((e) => e.outerHTML.slice(0, 80));""")


def run(driver, api, url, templates, printed, screenshots):
    # 0. Without a token the page asks for one, and works once it is given.
    driver.get(url.split("#")[0])
    wait_for("the token dialog", lambda: driver.execute_script(
        "const d = document.getElementById('token-dialog'); return d.open ? d : null"))
    driver.find_element(By.ID, "token-input").send_keys(api.token + Keys.ENTER)
    wait_for_new_preview(driver, None)
    if driver.execute_script("return document.getElementById('token-dialog').open"):
        fail("the token dialog stayed open after a good token")
    # Then the address `receipt design` prints: the token in it is taken and removed from it.
    driver.execute_script("sessionStorage.clear()")
    driver.get("about:blank")
    driver.get(url)
    wait_for("the token to leave the address bar", lambda: "token=" not in driver.current_url)
    missing = unlabelled_controls(driver)
    if missing:
        fail(f"controls without a label: {missing}")

    # 1. The designer shows the receipt template with a preview as long as the receipt.
    state = wait_for_new_preview(driver, None)
    if "<receipt" not in editor_text(driver):
        fail("the editor does not show a receipt template")
    source = editor_text(driver)
    expected = api.cut_length_dots(source, order(driver), "receipt")
    if state["height"] != expected or state["dots"] != str(expected):
        fail(f"preview height {state['height']} px (shown {state['dots']} dots), API cut length {expected} dots")
    if state["width"] != 639:
        fail(f"an 80 mm receipt at 203 dpi is 639 dots wide, the preview {state['width']}")
    if screenshots:
        driver.save_screenshot(os.path.join(screenshots, "designer.png"))

    # 2. Change a text: the preview changes, and is as long as the API says for the new text. The
    #    editor closes the tag when its start tag is typed.
    textarea = editor_input(driver)
    put_caret(driver, source.rindex("</receipt>"))
    typed = '<text align="center">Typed in the browser, a line long enough to wrap twice on the paper'
    textarea.send_keys(typed)
    changed = wait_for_new_preview(driver, state["sequence"])
    source = editor_text(driver)
    if typed + "</text></receipt>" not in source:
        fail(f"the editor did not close the typed <text>: {source[-150:]!r}")
    expected = api.cut_length_dots(source, order(driver), "receipt")
    if changed["height"] != expected:
        fail(f"after the edit the preview is {changed['height']} px, the API's cut length {expected} dots")
    if changed["height"] <= state["height"]:
        fail(f"an added paragraph did not lengthen the preview ({state['height']} -> {changed['height']})")

    # 2b. A printer model: the preview is laid out for its head (Epson TM-T88V: 180 dpi, so 80 mm
    #     paper is 566 dots wide, 512 of them printable), as long as the API says for that model.
    from selenium.webdriver.support.ui import Select
    Select(driver.find_element(By.ID, "paper-select")).select_by_value("model:epson-tm-t88v")
    model = wait_for_new_preview(driver, changed["sequence"])
    status, headers, _ = api.call("POST", "/v1/render?format=png", {
        "template": "receipt", "source": source, "data": order(driver), "model": "epson-tm-t88v"})
    if model["width"] != 566 or model["height"] != int(headers["Receipt-Cut-Length-Dots"]):
        fail(f"TM-T88V preview {model['width']}x{model['height']}, API {headers['Receipt-Cut-Length-Dots']} dots long")
    Select(driver.find_element(By.ID, "paper-select")).select_by_value("")
    wait_for_new_preview(driver, model["sequence"])

    # 2c. The editor highlights XML (tags, attributes and values in their own colours), marks the
    #     tag that matches the one the caret is in, and completes the template vocabulary: after
    #     `<` the elements allowed there, after a space in a tag that element's attributes, after
    #     `=` the attribute's values — the lists /vocabulary.json gives, which the renderer's
    #     tests hold to what it accepts.
    colours = driver.execute_script("""
        const q = (s) => document.querySelector('#editor ' + s);
        const colour = (e) => e && getComputedStyle(e).color;
        return {tag: colour(q('.cm-tag')), attribute: colour(q('.cm-attribute')), string: colour(q('.cm-string')),
                text: colour(q('.CodeMirror-line'))};""")
    if None in colours.values() or len(set(colours.values())) != 4:
        fail(f"the template is not highlighted (tag, attribute, value, text colours): {colours}")
    lines = source.split("\n")
    inside = next(i for i, line in enumerate(lines) if line.lstrip().startswith("<receipt")) + 1
    closing = next(i for i, line in enumerate(lines) if "</receipt>" in line)
    put_caret(driver, source.index("<receipt") + 3)
    matched = wait_for("both <receipt> tags to be marked as matching", lambda: driver.execute_script(
        f"return {EDITOR}.getAllMarks().filter((m) => m.className === 'CodeMirror-matchingtag')"
        ".map((m) => m.find().from.line).sort((a, b) => a - b)") == [inside - 1, closing]
        and driver.find_elements(By.CSS_SELECTOR, "#editor .CodeMirror-matchingtag"))
    vocabulary = json.loads(api.call("GET", "/vocabulary.json")[2])
    put_caret(driver, sum(len(line) + 1 for line in lines[:inside]))
    textarea.send_keys("<")
    offered = wait_for("element completions after <", lambda: hints(driver))
    elements = sorted(h[1:] for h in offered if not h.startswith("</"))
    if elements != sorted(vocabulary["receipt"]["children"]) or "qrcode" not in elements:
        fail(f"after < in <receipt> the editor offers {offered}, the vocabulary {vocabulary['receipt']['children']}")
    textarea.send_keys("qr")
    wait_for("the list to narrow to <qrcode", lambda: hints(driver) == ["<qrcode"])
    textarea.send_keys(Keys.ENTER, " ")
    offered = wait_for("attribute completions after a space", lambda: hints(driver))
    if sorted(offered) != sorted(vocabulary["qrcode"]["attrs"]):
        fail(f"in <qrcode the editor offers {offered}, the vocabulary {sorted(vocabulary['qrcode']['attrs'])}")
    textarea.send_keys("al")
    wait_for("the list to narrow to align", lambda: hints(driver) == ["align"])
    textarea.send_keys(Keys.ENTER, "=")
    offered = wait_for("value completions after align=", lambda: hints(driver))
    if [v.strip('"') for v in offered] != vocabulary["qrcode"]["attrs"]["align"]:
        fail(f"after align= the editor offers {offered}")
    textarea.send_keys(Keys.ESCAPE)
    typed_line = editor_text(driver).split("\n")[inside]
    if not typed_line.startswith("<qrcode align="):
        fail(f"completion did not write <qrcode align=: {typed_line!r}")
    before = preview_state(driver)["sequence"]
    driver.execute_script(f"{EDITOR}.setValue(arguments[0])", source)
    wait_for_new_preview(driver, before)
    if screenshots:
        driver.save_screenshot(os.path.join(screenshots, "editor.png"))

    # 3. An error is marked on its line (an unknown element, typed at the start of the line after
    #    the <receipt> tag); fixing it removes the mark.
    lines = source.split("\n")
    target = next(i for i, line in enumerate(lines) if line.lstrip().startswith("<receipt")) + 2
    offset = sum(len(line) + 1 for line in lines[:target - 1])
    put_caret(driver, offset)
    textarea.send_keys("<bogus-element/>")
    wait_for(f"line {target} to be marked", lambda: error_lines(driver) == [str(target)])
    message = driver.find_element(By.ID, "errors").text
    if f"line {target}" not in message or "bogus-element" not in message:
        fail(f"the error message does not name line {target} and the element: {message!r}")
    if textarea.get_attribute("aria-invalid") != "true":
        fail("the editor is not marked invalid for assistive technology")
    for _ in range(len("<bogus-element/>")):
        textarea.send_keys(Keys.BACKSPACE)
    wait_for("the mark to go", lambda: error_lines(driver) == [] and driver.find_element(By.ID, "errors").text == "")
    if editor_text(driver) != source:
        fail("the editor text is not back to the valid template")

    # 4. Save it under a new name; the file is the editor's text.
    name_field = driver.find_element(By.ID, "save-name")
    name_field.clear()
    name_field.send_keys("browser-made")
    driver.find_element(By.ID, "save").click()
    wait_for("the save to be confirmed", lambda: driver.find_element(By.ID, "save-status").text.startswith("Saved"))
    with open(os.path.join(templates, "browser-made.xml"), encoding="utf-8") as file:
        if file.read() != source:
            fail("the saved file is not what the editor showed")

    # 5. The queue: a job submitted elsewhere appears and reaches completed without a reload.
    driver.find_element(By.ID, "tab-queue").click()
    wait_for("the printers table", lambda: driver.find_elements(By.CSS_SELECTOR, "#printers tbody tr[data-printer]"))
    driver.execute_script("window.__notReloaded = true")
    status, _, body = api.call("POST", "/v1/jobs", {"template": "browser-made", "data": order(driver)})
    if status != 202:
        fail(f"submitting a job with the saved template: {status} {body!r}")
    job = json.loads(body)["id"]
    wait_for(f"job {job} to show completed",
             lambda: driver.find_elements(By.CSS_SELECTOR, f'#jobs tr[data-job-id="{job}"][data-state="completed"]'))
    if not driver.execute_script("return window.__notReloaded === true"):
        fail("the page was reloaded")
    if not any(job in name for name in os.listdir(printed)):
        fail(f"job {job} is completed but nothing was printed in {printed}")

    # 6. A job that failed (its template cannot encode the order's EAN) is retried from the
    #    queue after the template is fixed, and prints.
    broken = '<receipt>\n  <text>Gift voucher</text>\n  <barcode type="ean13" data="$code"/>\n</receipt>\n'
    status, _, body = api.call("PUT", "/v1/templates/voucher", broken.encode(), "application/xml")
    if status not in (200, 201):
        fail(f"saving the voucher template: {status} {body!r}")
    status, _, body = api.call("POST", "/v1/jobs", {"template": "voucher", "data": {"code": "GIFT-2024"}})
    failed = json.loads(body)["id"]
    row = f'#jobs tr[data-job-id="{failed}"]'
    wait_for(f"job {failed} to show failed",
             lambda: driver.find_elements(By.CSS_SELECTOR, row + '[data-state="failed"]'))
    driver.find_element(By.CSS_SELECTOR, row).click()
    wait_for("the job's error in its detail", lambda: "ean" in driver.find_element(By.ID, "job-fields").text.lower()
             or "barcode" in driver.find_element(By.ID, "job-fields").text.lower())
    fixed = broken.replace('type="ean13"', 'type="code128"')
    status, _, _ = api.call("PUT", "/v1/templates/voucher", fixed.encode(), "application/xml")
    if status != 200:
        fail(f"fixing the voucher template: {status}")
    retry = driver.find_element(By.CSS_SELECTOR, row + " button")
    if retry.text != "Retry":
        fail(f"the failed job's button says {retry.text!r}")
    retry.click()
    wait_for(f"job {failed} to print after the retry",
             lambda: driver.find_elements(By.CSS_SELECTOR, row + '[data-state="completed"]'))
    if not any(failed in name for name in os.listdir(printed)):
        fail(f"the retried job {failed} is completed but was not printed")
    if screenshots:
        driver.find_element(By.CSS_SELECTOR, row).click()
        time.sleep(0.3)
        driver.save_screenshot(os.path.join(screenshots, "queue.png"))

    # 7. Keyboard: Enter on a focused job row opens its detail; arrow keys move between the tabs.
    driver.find_element(By.CSS_SELECTOR, f'#jobs tr[data-job-id="{job}"]').send_keys(Keys.ENTER)
    wait_for("the detail of the row Enter was pressed on",
             lambda: not driver.find_element(By.ID, "job-detail").get_attribute("hidden")
             and job[:8] in driver.find_element(By.ID, "job-detail").text)
    driver.find_element(By.ID, "tab-queue").send_keys(Keys.ARROW_LEFT)
    wait_for("ArrowLeft to select the designer tab",
             lambda: driver.find_element(By.ID, "tab-designer").get_attribute("aria-selected") == "true"
             and driver.find_element(By.ID, "queue").get_attribute("hidden"))
    driver.find_element(By.ID, "tab-designer").send_keys(Keys.ARROW_RIGHT)
    wait_for("ArrowRight to select the queue tab",
             lambda: driver.find_element(By.ID, "tab-queue").get_attribute("aria-selected") == "true")

    # 8. Filters: by state, then by printer; only matching rows are listed.
    Select(driver.find_element(By.ID, "state-filter")).select_by_visible_text("completed")
    wait_for("only completed jobs", lambda: (rows := driver.find_elements(By.CSS_SELECTOR, "#jobs tr[data-job-id]"))
             and all(r.get_attribute("data-state") == "completed" for r in rows))
    Select(driver.find_element(By.ID, "state-filter")).select_by_value("")
    printers = [o.get_attribute("value") for o in driver.find_elements(By.CSS_SELECTOR, "#printer-filter option")]
    if len([p for p in printers if p]) < 1:
        fail(f"the printer filter lists no printer: {printers}")
    Select(driver.find_element(By.ID, "printer-filter")).select_by_value(printers[-1])
    wait_for("only that printer's jobs", lambda: all(
        r.find_elements(By.TAG_NAME, "td")[1].text == printers[-1]
        for r in driver.find_elements(By.CSS_SELECTOR, "#jobs tr[data-job-id]")))
    Select(driver.find_element(By.ID, "printer-filter")).select_by_value("")

    # 9. Cancel: the printer's directory is taken away, so the head job fails and waits for its
    #    retry; a job behind it stays queued, and Cancel on its row cancels it. The directory back,
    #    the head prints; the canceled one never does.
    away = printed + ".away"
    os.rename(printed, away)
    open(printed, "w").close()
    status, _, body = api.call("POST", "/v1/jobs", {"template": "browser-made", "data": order(driver)})
    head = json.loads(body)["id"]
    status, _, body = api.call("POST", "/v1/jobs", {"template": "browser-made", "data": order(driver)})
    behind = json.loads(body)["id"]
    behind_row = f'#jobs tr[data-job-id="{behind}"]'
    wait_for("the job behind to show queued with Cancel", lambda: [
        b for b in driver.find_elements(By.CSS_SELECTOR, behind_row + '[data-state="queued"] button') if b.text == "Cancel"])
    next(b for b in driver.find_elements(By.CSS_SELECTOR, behind_row + " button") if b.text == "Cancel").click()
    wait_for("the job to show canceled", lambda: driver.find_elements(By.CSS_SELECTOR, behind_row + '[data-state="canceled"]'))
    if json.loads(api.call("GET", f"/v1/jobs/{behind}")[2])["state"] != "canceled":
        fail("the API does not say canceled")
    os.remove(printed)
    os.rename(away, printed)
    wait_for(f"the head job {head} to print once its directory is back",
             lambda: any(head in name for name in os.listdir(printed)), timeout=60)
    if any(behind in name for name in os.listdir(printed)):
        fail("the canceled job printed")

    # 10. Ctrl-S in the editor saves the template; Download PDF gives the preview as a PDF.
    driver.find_element(By.ID, "tab-designer").click()
    name_field = driver.find_element(By.ID, "save-name")
    name_field.clear()
    name_field.send_keys("ctrl-saved")
    before = driver.find_element(By.ID, "save-status").text
    editor_input(driver).send_keys(Keys.CONTROL, "s")
    wait_for("Ctrl-S to save", lambda: os.path.exists(os.path.join(templates, "ctrl-saved.xml")))
    with open(os.path.join(templates, "ctrl-saved.xml"), encoding="utf-8") as file:
        if file.read() != editor_text(driver):
            fail("the Ctrl-S file is not the editor's text")
    downloads = tempfile.mkdtemp(prefix="receipt-downloads-")
    driver.execute_cdp_cmd("Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": downloads})
    driver.find_element(By.ID, "download-pdf").click()
    pdf = wait_for("the PDF download", lambda: [n for n in os.listdir(downloads) if n.endswith(".pdf")])
    path = os.path.join(downloads, pdf[0])
    height = float(re.search(r"Page size:\s+[0-9.]+ x ([0-9.]+) pts",
                             subprocess.run(["pdfinfo", path], capture_output=True, text=True).stdout).group(1))
    _, headers, _ = api.call("POST", "/v1/render?format=pdf", {
        "template": "ctrl-saved", "source": editor_text(driver), "data": order(driver)})
    if abs(height - float(headers["Receipt-Cut-Length"])) > 0.01:
        fail(f"the downloaded PDF is {height} pt long, the API's cut length {headers['Receipt-Cut-Length']} pt")

    # 11. Nothing the page did broke its Content-Security-Policy or threw.
    broken = [e["message"] for e in driver.get_log("browser")
              if e.get("level") == "SEVERE" and ("Content Security Policy" in e["message"] or "Uncaught" in e["message"])]
    if broken:
        fail(f"the console reports: {broken}")


if __name__ == "__main__":
    main()
