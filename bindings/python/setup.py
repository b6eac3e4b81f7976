"""Builds the package with the SDK's libraries inside it (voicechat/lib), so that an installed
package needs neither the project nor a Swift toolchain. The SDK is the project's sdk/ (made by
scripts/build-sdk.sh) or the folder $VOICECHAT_SDK names."""

import os
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildWithSDK(build_py):
    def run(self):
        super().run()
        here = Path(__file__).resolve().parent
        sdk = Path(os.environ.get("VOICECHAT_SDK", here.parent.parent / "sdk"))
        library = sdk / "lib" / "libvoicechat.so"
        if not library.exists():
            raise SystemExit(
                f"voicechat: {library} is missing; make the SDK first with scripts/build-sdk.sh "
                "(or set VOICECHAT_SDK to an SDK folder)"
            )
        target = Path(self.build_lib) / "voicechat" / "lib"
        target.mkdir(parents=True, exist_ok=True)
        for item in (sdk / "lib").iterdir():
            if item.is_file():
                shutil.copy2(item, target / item.name)


setup(cmdclass={"build_py": BuildWithSDK})
