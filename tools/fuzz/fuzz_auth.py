"""
Schemathesis hooks for tools/fuzz/run.sh: every generated request is authenticated as a live account
of the role FUZZ_ROLE ("user" or "admin") on the server at FUZZ_BASE_URL.

The fuzzer itself logs out, deletes accounts and changes passwords and emails, so before each test
case the current access token is tried on GET /users/current; when it no longer works, a new account
is registered (admins from the FUZZ_ADMIN_EMAILS whitelist, next unused one first).
"""
import os
import threading
import uuid

import requests
import schemathesis

BASE_URL = os.environ["FUZZ_BASE_URL"].rstrip("/") + "/api/v1"
ROLE = os.environ.get("FUZZ_ROLE", "user")
ADMIN_EMAILS = [email for email in os.environ.get("FUZZ_ADMIN_EMAILS", "").split(",") if email]
PASSWORD = "fuzz-" + uuid.uuid4().hex  # generated per run, never stored

_lock = threading.Lock()
_state = {"account": None, "next_admin": 0}


def _register():
    while True:
        if ROLE == "admin":
            if _state["next_admin"] >= len(ADMIN_EMAILS):
                raise RuntimeError("every whitelisted admin email is taken: raise FUZZ_ADMIN_COUNT")
            email = ADMIN_EMAILS[_state["next_admin"]]
            _state["next_admin"] += 1
            body = {"email": email, "password": PASSWORD, "role": "admin"}
        else:
            body = {"email": f"fuzz-{uuid.uuid4().hex[:16]}@example.com", "password": PASSWORD}
        response = requests.post(f"{BASE_URL}/auth/register", json=body, timeout=30)
        if response.status_code == 201:
            return response.json()["accessToken"], response.cookies.get("refreshToken")
        if ROLE != "admin" or response.status_code != 400:
            raise RuntimeError(f"register failed: {response.status_code} {response.text[:200]}")


def _alive(token):
    response = requests.get(f"{BASE_URL}/users/current", headers={"Authorization": f"Bearer {token}"}, timeout=30)
    return response.status_code == 200


@schemathesis.auth(refresh_interval=None)
class LiveAccount:
    def get(self, case, context):
        with _lock:
            account = _state["account"]
            if account is None or not _alive(account[0]):
                account = _register()
                _state["account"] = account
            return account

    def set(self, case, data, context):
        token, refresh = data
        case.headers = {**(case.headers or {}), "Authorization": f"Bearer {token}"}
        case.cookies = {**(case.cookies or {}), "refreshToken": refresh}
