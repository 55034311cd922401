"""The nouns of argument descriptions written in Chinese or Japanese, glossed in English.

Kind inference reads English words (``path``, ``folder``, ``password``). A server whose schema is
described in another script (``"description": "要解压的压缩文件路径或路径数组"``, the archive file's
path or an array of paths) would otherwise say nothing about its arguments: its descriptions are
glossed word for word with the few nouns that decide a kind — places in a file system, names,
secrets, addresses, times, formats — and the English words appended to the text, which keeps every
word it had. A gloss only adds words a reader of the original would see; it never translates a
sentence.
"""

from __future__ import annotations

import functools
import re

__all__ = ["gloss"]

_GLOSSARY: dict[str, str] = {
    # Chinese (simplified and traditional)
    "文件夹": "folder", "資料夾": "folder", "目录": "directory", "目錄": "directory",
    "路径": "path", "路徑": "path", "文件名": "filename", "文件": "file", "檔案": "file",
    "压缩包": "archive", "壓縮檔": "archive", "归档": "archive",
    "密码": "password", "密碼": "password", "用户名": "username", "名称": "name", "名稱": "name",
    "网址": "url", "链接": "url", "連結": "url", "邮箱": "email", "电子邮件": "email",
    "日期": "date", "时间": "time", "時間": "time", "格式": "format", "编码": "encoding",
    "查询": "query", "查詢": "query", "表名": "table name", "数据库": "database",
    "输出": "output", "輸出": "output", "输入": "input", "輸入": "input",
    "内容": "content", "內容": "content", "消息": "message", "文本": "text",
    "数量": "count", "级别": "level", "級別": "level",
    # Japanese
    "フォルダ": "folder", "ディレクトリ": "directory", "ファイル名": "filename", "ファイル": "file",
    "パス": "path", "パスワード": "password", "名前": "name", "日付": "date", "時刻": "time",
    "形式": "format", "出力": "output", "入力": "input",
}  # fmt: skip
_TERMS = re.compile("|".join(sorted(map(re.escape, _GLOSSARY), key=len, reverse=True)))
"""Longest first: ``文件夹`` (folder) is read before ``文件`` (file), ``パスワード`` before ``パス``."""
_NON_LATIN = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]")


@functools.lru_cache(maxsize=4096)
def gloss(text: str) -> str:
    """``text`` with the English of the glossed nouns it holds appended, in order of appearance
    (``输出目录路径`` → ``输出目录路径 (output directory path)``); text with no such noun unchanged."""
    if not text or not _NON_LATIN.search(text):
        return text
    words = [_GLOSSARY[match.group(0)] for match in _TERMS.finditer(text)]
    return f"{text} ({' '.join(words)})" if words else text
