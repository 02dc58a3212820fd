import ReceiptKit
