import Foundation

/// Orders as Square's Orders API exports them (`{"order": {…}}`, `RetrieveOrder`): money as
/// `{"amount": <integer minor units>, "currency": "EUR"}`, quantities as strings, and the lists an
/// order does not have (`modifiers`, `discounts`) left out rather than sent empty. The amounts add
/// up as Square's do (line totals with modifiers, an order discount, tax included).
public enum SquareOrders {
  /// One exported order: its JSON, its currency and locale, and every amount it holds.
  public struct Order: Sendable {
    public var name: String
    public var json: String
    public var currency: String
    public var locale: String
    /// Every money amount in the order, in minor units.
    public var amounts: [Int]
    /// The order's id (Square's: letters, digits and a hyphen).
    public var id: String
  }

  struct Item {
    var name: String
    var price: Int
  }

  static let french = [
    Item(name: "Café crème", price: 420), Item(name: "Croissant au beurre", price: 160),
    Item(name: "Pain au chocolat", price: 180), Item(name: "Chocolat chaud à l'ancienne", price: 550),
    Item(name: "Tartine beurre-confiture", price: 390), Item(name: "Jus d'orange pressé", price: 600),
    Item(name: "Thé vert Sencha", price: 450), Item(name: "Éclair au café", price: 420),
    Item(name: "Quiche lorraine, salade verte", price: 1150), Item(name: "Crêpe sucre", price: 380),
    Item(name: "Financier aux amandes", price: 250), Item(name: "Croque-monsieur", price: 890),
  ]
  static let frenchModifiers = [("Lait d'avoine", 60), ("Supplément chantilly", 80), ("Double shot", 50)]
  static let japanese = [
    Item(name: "カフェラテ", price: 550), Item(name: "抹茶ラテ", price: 620), Item(name: "クロワッサン", price: 320),
    Item(name: "チーズケーキ", price: 480),
  ]
  static let english = [
    Item(name: "Karak tea", price: 300), Item(name: "Saffron latte", price: 1_850),
    Item(name: "Date cake with a long name that wraps", price: 2_125), Item(name: "Mineral water", price: 400),
  ]

  /// The three café orders (EUR, fr_FR: 40 items with modifiers and a discount; 3 plain items;
  /// 12 items with a tip), a JPY one (ja_JP) and a BHD one (en_US, three-digit fils).
  public static let all: [Order] = [
    order(
      "square-40", id: "p4TrW8cLm-QeB7sYfHnJ2kXdA1vGZY", currency: "EUR", locale: "fr_FR", menu: french,
      count: 40, modifiers: frenchModifiers, discount: ("Fidélité 10 %", 10), tip: 0),
    order(
      "square-3", id: "Xz81KqPw0-LmN3vBcDe5FgHi7JkL", currency: "EUR", locale: "fr_FR", menu: french, count: 3,
      modifiers: [], discount: nil, tip: 0),
    order(
      "square-12", id: "Rt5YuIo9p-AsD2fGhJkL4zXcV6bN", currency: "EUR", locale: "fr_FR", menu: french, count: 12,
      modifiers: frenchModifiers, discount: ("Happy hour 15 %", 15), tip: 300),
    order(
      "square-jpy", id: "Jp7YeN0aB-CdE1fG2hI3jK4lM5nO", currency: "JPY", locale: "ja_JP", menu: japanese, count: 6,
      modifiers: [("オーツミルク", 50)], discount: ("会員 10 %", 10), tip: 0),
    order(
      "square-bhd", id: "Bh4Di9Nr-QwE5rT6yU7iO8pA9sDf", currency: "BHD", locale: "en_US", menu: english, count: 5,
      modifiers: [("Extra saffron", 375)], discount: ("Loyalty 5 %", 5), tip: 250),
  ]

  static func money(_ amount: Int, _ currency: String) -> String {
    #"{"amount": \#(amount), "currency": "\#(currency)"}"#
  }

  static func order(
    _ name: String, id: String, currency: String, locale: String, menu: [Item], count: Int,
    modifiers: [(String, Int)], discount: (String, Int)?, tip: Int
  ) -> Order {
    var amounts: [Int] = []
    var lines: [String] = []
    var gross = 0
    for i in 0..<count {
      let item = menu[(i * 7 + count) % menu.count]
      let quantity = 1 + (i * 5 + 3) % 3
      var line = #"{"uid": "li-\#(i)", "name": "\#(item.name)", "quantity": "\#(quantity)", "#
      line += #""base_price_money": \#(money(item.price, currency))"#
      var unit = item.price
      // Every third line has a modifier; the others have no "modifiers" member at all.
      if !modifiers.isEmpty, i % 3 == 1 {
        let (modifierName, price) = modifiers[i % modifiers.count]
        unit += price
        line += #", "modifiers": [{"uid": "m-\#(i)", "name": "\#(modifierName)", "#
        line += #""base_price_money": \#(money(price, currency)), "#
        line += #""total_price_money": \#(money(price * quantity, currency))}]"#
        amounts += [price, price * quantity]
      }
      let total = unit * quantity
      gross += total
      line += #", "gross_sales_money": \#(money(total, currency)), "total_money": \#(money(total, currency))}"#
      amounts += [item.price, total]
      lines.append(line)
    }
    var order = #"{"id": "\#(id)", "location_id": "L7C4AFE", "reference_id": "CAFE-\#(1000 + count)", "#
    order += #""state": "COMPLETED", "created_at": "2026-11-28T09:14:03.512Z", "#
    order += #""line_items": [\#(lines.joined(separator: ", "))]"#
    var discounted = 0
    if let (discountName, percent) = discount {
      discounted = (gross * percent + 50) / 100
      order += #", "discounts": [{"uid": "d-1", "name": "\#(discountName)", "percentage": "\#(percent)", "#
      order += #""applied_money": \#(money(discounted, currency)), "scope": "ORDER"}]"#
      amounts.append(discounted)
    }
    let total = gross - discounted + tip
    let tax = ((gross - discounted) * 10 + 55) / 110  // 10 % included
    order += #", "total_discount_money": \#(money(discounted, currency))"#
    order += #", "total_tax_money": \#(money(tax, currency)), "total_tip_money": \#(money(tip, currency))"#
    order += #", "total_money": \#(money(total, currency))}"#
    amounts += [tax, tip, total]
    return Order(
      name: name, json: #"{"order": \#(order)}"#, currency: currency, locale: locale, amounts: amounts, id: id)
  }
}
