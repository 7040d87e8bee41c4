"""English names shown beside the Chinese pattern names of the Shanghai and Sichuan rulesets
(the rulesets name their patterns in Chinese; a floor or a phone without a CJK font, or a
reader without Chinese, still knows what was scored)."""

ENGLISH = {
    "乱风向": "Jumbled Winds",
    "八花": "Eight Flowers",
    "和牌": "Win",
    "地和": "Earthly Hand",
    "大吊车": "Big Crane",
    "天和": "Heavenly Hand",
    "字一色": "All Honours",
    "字明杠": "Exposed Dragon Kong",
    "字暗杠": "Concealed Dragon Kong",
    "字碰": "Dragon Pung",
    "明杠": "Exposed Kong",
    "暗杠": "Concealed Kong",
    "杠开": "Win on Kong",
    "混一色": "Mixed One-Suit",
    "混碰": "Mixed Pungs",
    "清一色": "Pure One-Suit",
    "清碰": "Pure Pungs",
    "碰碰胡": "All Pungs",
    "花": "Flower",
    "风碰": "Wind Pung",
    "风明杠": "Exposed Wind Kong",
    "风暗杠": "Concealed Wind Kong",
    "七对": "Seven Pairs",
    "地胡": "Earthly Hand",
    "天胡": "Heavenly Hand",
    "对对胡": "All Pungs",
    "将对": "All 2-5-8 Pungs",
    "带幺九": "Terminals in Every Set",
    "平胡": "Plain Win",
    "杠上炮": "Discard after Kong",
    "杠上花": "Win on Kong",
    "根": "Root (four alike)",
    "清七对": "Pure Seven Pairs",
    "清对": "Pure All Pungs",
    "清幺九": "Pure Terminals in Every Set",
    "清龙七对": "Pure Dragon Seven Pairs",
    "自摸": "Self-Draw",
    "龙七对": "Dragon Seven Pairs",
}


def shown(name: str) -> str:
    """A pattern name as the dashboard shows it: the Chinese with the English beside."""
    english = ENGLISH.get(name)
    return f"{name} ({english})" if english else name
