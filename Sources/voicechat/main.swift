print("voicechat")
